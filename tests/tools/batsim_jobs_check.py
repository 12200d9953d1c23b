#!/usr/bin/python3
"""Reads a jobs.csv the way evalys and Batsim's pandas scripts do - with nothing but the
standard csv module - and checks it means what Batsim's means.

    batsim_jobs_check.py JOBS_CSV RESOURCES

Prints `utilisation=<value>` (Σ execution_time × |allocated_resources| over RESOURCES ×
makespan, makespan = last finish_time − first submission_time), then one `problem: ...` line
per violation: a job that ran whose resource count is not the one it requested, a job that
never ran with a time field set, or two jobs holding one resource at the same time. Exits 1
when there is a problem."""
import csv
import sys


def interval_set(text):
    ids = set()
    for part in text.split():
        first, _, last = part.partition('-')
        ids.update(range(int(first), int(last or first) + 1))
    return ids


def main(path, resources):
    with open(path, newline='') as f:
        rows = list(csv.DictReader(f))
    problems = []
    work = 0.0
    first_submit = min(float(r['submission_time']) for r in rows)
    last_finish = None
    held = []  # (start, finish, ids, job)
    for r in rows:
        times = [r[k] for k in ('execution_time', 'finish_time', 'turnaround_time', 'stretch')]
        if r['starting_time'] == '':
            if any(times) or r['waiting_time'] or r['allocated_resources'] or r['consumed_energy']:
                problems.append(f"job {r['job_id']} never started but has times or resources")
            continue
        ids = interval_set(r['allocated_resources'])
        if r['finish_time'] == '':
            continue  # still running when the run ended
        if len(ids) != int(r['requested_number_of_resources']):
            problems.append(f"job {r['job_id']} requested {r['requested_number_of_resources']} "
                            f"resources and holds {len(ids)}")
        start, finish = float(r['starting_time']), float(r['finish_time'])
        work += float(r['execution_time']) * len(ids)
        last_finish = finish if last_finish is None else max(last_finish, finish)
        held.append((start, finish, ids, r['job_id']))
    held.sort(key=lambda h: h[0])
    for i, (start, finish, ids, job) in enumerate(held):
        for start2, finish2, ids2, job2 in held[i + 1:]:
            if start2 >= finish:
                break
            shared = ids & ids2
            if shared:
                problems.append(f"jobs {job} and {job2} both hold resource {min(shared)} at {start2}")
    makespan = (last_finish - first_submit) if last_finish is not None else 0.0
    utilisation = work / (resources * makespan) if resources > 0 and makespan > 0 else 0.0
    print(f"utilisation={utilisation!r}")
    for p in problems:
        print(f"problem: {p}")
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
