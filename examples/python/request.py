#!/usr/bin/python3
"""A requestor written with Debian's python3-pmix (OpenPMIx 4.2.2's own bindings).

It attaches to one server of a running emulation (`pmixflow emul --hold` prints its directory),
asks for an allocation with PMIx_Allocation_request(PMIX_ALLOC_NEW) and prints the answer with
PMIx's names:

    /usr/bin/python3 examples/python/request.py /tmp/pmixflow-emul-XXXXXX --party daemon:n01 --nodes 1
    PMIX_SUCCESS  PMIX_ALLOC_ID=alloc-1 PMIX_SESSION_ID=1 PMIX_ALLOC_NODE_LIST=n01:8

Exit status: 0 when the answer is PMIX_SUCCESS, 1 when it is an error (or the server cannot be
reached), 2 for bad arguments. See README.md beside it for what the bindings can and cannot do.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import warnings

try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the binding's own setDaemon()
        import pmix
except ImportError:
    sys.exit("request.py: the pmix module is missing (Debian: apt-get install python3-pmix; run /usr/bin/python3)")

# Keys the flow uses that OpenPMIx 4.2.2 does not name (docs/pmix-compat.md): upstream's strings.
EXTRA_KEYS = {
    "pmix.alloc.preempt": "PMIX_ALLOC_PREEMPTIBLE",
    "pmix.alloc.sep": "PMIX_ALLOC_CHILD_SEP",
    "pmix.alloc.inhrt": "PMIX_ALLOC_INHERITANCE",
    "pmix.requestor": "PMIX_REQUESTOR",
    "pmix.ssn.app": "PMIX_SESSION_APP",
    "pmix.ssn.res": "PMIX_SESSION_RESOURCES",
    "pmix.ssn.job": "PMIX_SESSION_JOB",
}
# The correlation the emulation's event log names the call by (a server invents one without it).
CORR_KEY = "pmixflow.corr"


def pmix_names(prefixes, kind):
    """PMIx's constants of one kind, by value: {value: 'PMIX_NAME'}."""
    out = {}
    for name in sorted(dir(pmix)):
        value = getattr(pmix, name)
        if name.startswith(prefixes) and isinstance(value, kind) and value not in out:
            out[value] = name
    return out


STATUS_NAMES = pmix_names(("PMIX_ERR_", "PMIX_ERROR", "PMIX_EVENT_", "PMIX_OPERATION_"), int)
STATUS_NAMES[pmix.PMIX_SUCCESS] = "PMIX_SUCCESS"
KEY_NAMES = {k.decode(): n for k, n in pmix_names(("PMIX_",), bytes).items()}
KEY_NAMES.update(EXTRA_KEYS)


def status_name(rc):
    return STATUS_NAMES.get(rc, str(rc))


def value_text(item):
    value = item["value"]
    if item["val_type"] == pmix.PMIX_STATUS:
        return status_name(value)
    if item["val_type"] == pmix.PMIX_PROC:
        return "%s.%s" % (value["nspace"], value["rank"])
    if isinstance(value, str) and value and not any(c in value for c in " \t\"'{}="):
        return value
    return json.dumps(value, default=str)


def bad_input(message):
    print("request.py: " + message, file=sys.stderr)
    sys.exit(2)


def server_uri(directory, party):
    """The URI of `party` in the emulation's servers.json."""
    path = os.path.join(directory, "servers.json")
    try:
        with open(path) as f:
            servers = json.load(f)
    except PermissionError:
        bad_input("%s cannot be read: another user's emulation?" % directory)
    except (OSError, ValueError) as e:
        bad_input("%s: not a running emulation's directory (%s)" % (directory, e))
    for s in servers:
        if s.get("party") == party:
            return s["uri"]
    bad_input("no server '%s' in %s (it has: %s)"
              % (party, directory, ", ".join(s.get("party", "?") for s in servers)))


def arguments():
    p = argparse.ArgumentParser(description="Ask an emulated PMIx server for an allocation (PMIX_ALLOC_NEW).")
    p.add_argument("emulation", nargs="?", help="the emulation's directory (pmixflow emul --hold prints it)")
    p.add_argument("--uri", help="a server's PMIX_SERVER_URI instead of an emulation's directory")
    p.add_argument("--party", default="daemon:n01", help="controller, scheduler or daemon:NODE (default daemon:n01)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--nodes", type=int, help="PMIX_ALLOC_NUM_NODES (default 1)")
    size.add_argument("--cpus", type=int, help="PMIX_ALLOC_NUM_CPUS")
    p.add_argument("--timeout", type=int, default=10, help="seconds to wait for the server to take the connection")
    a = p.parse_args()
    if not a.uri and not a.emulation:
        p.error("give the emulation's directory or --uri")
    return a


def info(key, value, val_type):
    return {"key": key, "value": value, "val_type": val_type}


def main():
    a = arguments()
    uri = a.uri or server_uri(a.emulation, a.party)
    me = "pyrequest-%d" % os.getpid()
    tmp = tempfile.mkdtemp(prefix="pmixflow-pytool-")
    tool = pmix.PMIxTool()
    try:
        # Not connected at init: attached below to the one server named (several are up).
        rc, _ = tool.init([info(pmix.PMIX_TOOL_NSPACE, me, pmix.PMIX_STRING),
                           info(pmix.PMIX_TOOL_RANK, 0, pmix.PMIX_PROC_RANK),
                           info(pmix.PMIX_TOOL_DO_NOT_CONNECT, True, pmix.PMIX_BOOL),
                           info(pmix.PMIX_SYSTEM_TMPDIR, tmp, pmix.PMIX_STRING),
                           info(pmix.PMIX_SERVER_TMPDIR, tmp, pmix.PMIX_STRING)])
        if rc != pmix.PMIX_SUCCESS:
            print("request.py: PMIx would not start: %s (%d)" % (status_name(rc), rc), file=sys.stderr)
            return 1
        try:
            # PRIMARY: without it 4.2.2 leaves the next call hanging.
            rc, _, server = tool.attach_to_server([info(pmix.PMIX_SERVER_URI, uri, pmix.PMIX_STRING),
                                                   info(pmix.PMIX_PRIMARY_SERVER, True, pmix.PMIX_BOOL),
                                                   info(pmix.PMIX_TIMEOUT, a.timeout, pmix.PMIX_INT)])
        except UnboundLocalError:
            rc = pmix.PMIX_ERR_UNREACH  # the binding's own bug: it fails this way when the attach fails
        if rc != pmix.PMIX_SUCCESS:
            print("request.py: cannot attach to %s: %s (%d)" % (uri, status_name(rc), rc), file=sys.stderr)
            return 1
        if a.cpus is not None:
            ask = [info(pmix.PMIX_ALLOC_NUM_CPUS, a.cpus, pmix.PMIX_UINT64)]
        else:
            ask = [info(pmix.PMIX_ALLOC_NUM_NODES, a.nodes or 1, pmix.PMIX_UINT64)]
        ask.append(info(CORR_KEY, me + "#1", pmix.PMIX_STRING))
        rc, got = tool.allocation_request(pmix.PMIX_ALLOC_NEW, ask)
        items = " ".join("%s=%s" % (KEY_NAMES.get(i["key"], i["key"]), value_text(i)) for i in got)
        print(status_name(rc) + ("  " + items if items else ""))
        if rc != pmix.PMIX_SUCCESS:
            print("request.py: %s (%d): PMIx_Allocation_request(PMIX_ALLOC_NEW) through %s was refused"
                  % (status_name(rc), rc, a.party if not a.uri else uri), file=sys.stderr)
            return 1
        return 0
    finally:
        # Only PMIx_tool_finalize: the binding's disconnect() is broken (TypeError), so 4.2.2's
        # double release of an attached primary server (docs/pmix-compat.md (e)) cannot be avoided
        # here; it goes unseen outside AddressSanitizer.
        if tool.initialized():
            tool.finalize()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
