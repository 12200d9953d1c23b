#!/usr/bin/python3
"""How far a scheduler written with python3-pmix (OpenPMIx 4.2.2's bindings) gets. README.md says
why it stops where it does; this script is the evidence, runnable.

Against an emulation whose own scheduler never starts (no-scheduler.jsonl beside this file):

    build/apps/pmixflow emul --hold --nodes 2 --scenario examples/python/no-scheduler.jsonl
    /usr/bin/python3 examples/python/scheduler_attempt.py /tmp/pmixflow-emul-XXXXXX &
    build/apps/pmixflow request --emulation /tmp/pmixflow-emul-XXXXXX NEW PMIX_ALLOC_NUM_NODES=1

It attaches to the controller as the scheduler, declares itself, and grants whole free nodes, first
come first served, as standing reservations (PMIX_SESSION_INSTANTIATE, then the answer). 4.2.2 has
no session-control call, no session_control up-call and no way to forward a request to a
scheduler, so the emulation carries those as its own messages over PMIx_Job_control and targeted
events (docs/pmix-compat.md); this script speaks them, with only what the bindings offer.
"""

import json
import os
import queue
import shutil
import sys
import tempfile
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # the binding's own setDaemon()
    import pmix

CARRIER_EVENT = -10301  # the emulation's event code for a message to its scheduler (carrier.hpp)
SESSION_MARKER = "pmixflow.ssnctrl"  # marks a PMIx_Job_control that is a session control (compat.h)


def item(key, value, val_type):
    return {"key": key, "value": value, "val_type": val_type}


def carried(name, header, body):
    """A message as the emulation carries it: its name, its header's length, the header, the body."""
    return ([item("pmixflow.msg", name, pmix.PMIX_STRING), item("pmixflow.hdr", len(header), pmix.PMIX_UINT32)]
            + header + body)


def split(info):
    """(name, header as a dict, body as a list) of a carried message."""
    count = info[1]["value"]
    header = {i["key"]: i["value"] for i in info[2:2 + count]}
    return info[0]["value"], header, info[2 + count:]


class Scheduler:
    def __init__(self, tool, nodes):
        self.tool, self.free, self.sessions, self.next_session = tool, list(nodes), {}, 1

    def control(self, session, directives):
        """The scheduler's own PMIx_Session_control, as the emulation carries it over 4.2.2."""
        rc, info = self.tool.job_control(None, directives + [item(SESSION_MARKER, session, pmix.PMIX_UINT32)])
        return rc, info

    def answer(self, name, header, status, body):
        h = [item("pmixflow.id", header["pmixflow.id"], pmix.PMIX_UINT64),
             item("pmixflow.corr", header.get("pmixflow.corr", ""), pmix.PMIX_STRING),
             item("pmixflow.status", status, pmix.PMIX_STATUS)]
        self.tool.job_control(None, carried(name, h, body))

    def on_alloc(self, header, body):
        keys = {b["key"]: b for b in body}
        if "pmix.requestor" not in keys:
            # What the binding does to a request with an app (README.md): it drops the app and
            # every item after it, the requestor's identity included.
            print("scheduler: this request reached Python without its requestor (an app in it?)", file=sys.stderr)
        want = keys["pmix.alloc.nnodes"]["value"] if "pmix.alloc.nnodes" in keys else 1
        if header.get("pmixflow.directive") != pmix.PMIX_ALLOC_NEW or want > len(self.free):
            status = pmix.PMIX_ERR_NOT_SUPPORTED if want <= len(self.free) else pmix.PMIX_ERR_OUT_OF_RESOURCE
            return self.answer("alloc_response", header, status, [])
        nodes, self.free = self.free[:want], self.free[want:]
        session, self.next_session = self.next_session, self.next_session + 1
        alloc = "pyalloc-%d" % session
        resources = [item("pmix.alloc.nlist", ",".join(nodes), pmix.PMIX_STRING),
                     item("pmix.alloc.id", alloc, pmix.PMIX_STRING)]
        directives = [item("pmix.ssn.inst", True, pmix.PMIX_BOOL),
                      item("pmix.ssn.res", {"type": pmix.PMIX_INFO, "array": resources}, pmix.PMIX_DATA_ARRAY)]
        if "pmix.requestor" in keys:
            directives.append(item("pmix.requestor", keys["pmix.requestor"]["value"], pmix.PMIX_PROC))
        rc, _ = self.control(session, directives)
        if rc != pmix.PMIX_SUCCESS:
            self.free += nodes
            return self.answer("alloc_response", header, rc, [])
        self.sessions[session] = nodes
        self.answer("alloc_response", header, pmix.PMIX_SUCCESS,
                    [item("pmix.alloc.id", alloc, pmix.PMIX_STRING), item("pmix.session.id", session, pmix.PMIX_UINT32),
                     item("pmix.alloc.nlist", ",".join(nodes), pmix.PMIX_STRING)])
        print("scheduler: granted %s (session %d) on %s" % (alloc, session, ",".join(nodes)), flush=True)

    def on_session_ctrl(self, header, body):
        keys = {b["key"]: b["value"] for b in body}
        session = header.get("pmixflow.session", 0)
        if keys.get("pmix.ssn.complete"):
            # The RM: every job of the session is done and its nodes are free again.
            self.free += self.sessions.pop(keys.get("pmix.session.id", session), [])
            return self.answer("session_ctrl_response", header, pmix.PMIX_SUCCESS, [])
        # A requestor's session control, forwarded for a decision: granted as asked, for what it holds.
        directives = [item(b["key"], b["value"], b["val_type"]) for b in body
                      if not b["key"].startswith(("pmix.euid", "pmix.egid", "pmix.requestor", "pmix.ev"))]
        rc, _ = self.control(session, directives) if session in self.sessions else (pmix.PMIX_ERR_NOT_FOUND, [])
        self.answer("session_ctrl_response", header, rc, [])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scheduler_attempt.py EMULATION_DIR")
    with open(os.path.join(sys.argv[1], "servers.json")) as f:
        servers = json.load(f)
    uri = next(s["uri"] for s in servers if s["party"] == "controller")
    nodes = sorted(s["party"].split(":", 1)[1] for s in servers if s["party"].startswith("daemon:"))
    tool, tmp, inbox = pmix.PMIxTool(), tempfile.mkdtemp(prefix="pmixflow-pysched-"), queue.Queue()
    print("scheduler: PMIxTool has set_server_module: %s (tools cannot attach to this scheduler)"
          % hasattr(tool, "set_server_module"), flush=True)
    try:
        rc, _ = tool.init([item(pmix.PMIX_TOOL_NSPACE, "scheduler", pmix.PMIX_STRING),
                           item(pmix.PMIX_TOOL_RANK, 0, pmix.PMIX_PROC_RANK),
                           item(pmix.PMIX_TOOL_DO_NOT_CONNECT, True, pmix.PMIX_BOOL),
                           item(pmix.PMIX_SERVER_SCHEDULER, True, pmix.PMIX_BOOL),  # 4.2.2 ignores it in a tool
                           item(pmix.PMIX_SYSTEM_TMPDIR, tmp, pmix.PMIX_STRING),
                           item(pmix.PMIX_SERVER_TMPDIR, tmp, pmix.PMIX_STRING)])
        rc, _, server = tool.attach_to_server([item(pmix.PMIX_SERVER_URI, uri, pmix.PMIX_STRING),
                                               item(pmix.PMIX_PRIMARY_SERVER, True, pmix.PMIX_BOOL)])
        def on_event(_id, _status, _source, info, _results):
            # On PMIx's progress thread, with the GIL: handed to the main thread, nothing more.
            inbox.put(info)
            return pmix.PMIX_SUCCESS, []

        # After attaching: 4.2.2 sends a server no registration made before.
        tool.register_event_handler([CARRIER_EVENT], None, on_event)
        # The declaration 4.2.2 does not carry (PMIX_SERVER_SCHEDULER), as the emulation's message.
        tool.job_control(None, carried("connect", [item("pmixflow.id", 1, pmix.PMIX_UINT64),
                                                    item("pmixflow.caller", {"nspace": "scheduler", "rank": 0},
                                                         pmix.PMIX_PROC)],
                                       [item(pmix.PMIX_SERVER_SCHEDULER, True, pmix.PMIX_BOOL)]))
        sched = Scheduler(tool, nodes)
        print("scheduler: attached to %s, serving nodes %s" % (uri, ",".join(nodes)), flush=True)
        while True:
            name, header, body = split(inbox.get())
            if name == "connect_response":
                print("scheduler: the controller took the declaration: %d" % header["pmixflow.status"], flush=True)
            elif name == "alloc_request":
                sched.on_alloc(header, body)
            elif name == "session_ctrl":
                sched.on_session_ctrl(header, body)
    except KeyboardInterrupt:
        return 0
    finally:
        if tool.initialized():
            tool.finalize()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
