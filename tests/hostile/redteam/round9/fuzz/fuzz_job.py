import os, random, sys, time, traceback, json
sys.path.insert(0, "/work/redteam9")
from pathlib import Path
from grader.run.jail import job as jobmod
from grader.run import protocol
from grader.run.protocol import Call, Limits, Frames, encode

class CG:
    def oom_kills(self): return 0
    def cpu_seconds(self): return 0.0
    def members(self): return []
class Box:
    def __init__(self):
        self.results, self.diag = os.pipe()
        self.frames = Frames(); self.ready = True; self.ran = False; self.cgroup = CG(); self.memory_mb = 100
    def hear(self, d): pass
    def diagnosis(self): return "diag"

rng = random.Random(int(sys.argv[1]))
bad = {}
for it in range(int(sys.argv[2])):
    box = Box()
    n = rng.randint(1, 3)
    calls = [Call(case=f"c{i}", module="m", function="f", inputs={}, max_bytes=1000) for i in range(n)]
    out_fd = os.memfd_create("o"); st_fd = os.memfd_create("s")
    j = jobmod.Job(box, calls, Limits(timeout=5), Path("/tmp/rt9/fuzz/nonexist"), (out_fd, st_fd), "/x", None, 5)
    frames = []
    for _ in range(rng.randint(1, 8)):
        k = rng.choice(["start", "result", "ended", "ready", "junk"])
        if k == "start": frames.append(({"start": rng.choice([0, 1, 2, 3, -1, True, 1.0]), "pid": rng.choice([2, 1, None, 10**30])}, []))
        elif k == "result": frames.append(({"status": rng.choice(["exception", "ok", "pass"]), "keys": [], "message": "x"}, []))
        elif k == "ended": frames.append(({"ended": "0-1", "signal": rng.choice([None, 9, 99]), "code": rng.choice([0, 75, 70, None, 300])}, []))
        elif k == "ready": frames.append(({"ready": True}, []))
        else: frames.append(({"x": 1}, []))
    data = b"".join(encode(h, p) for h, p in frames)
    try:
        outs = []
        for o in j._feed(box.frames.feed(data)):
            outs.append(o)
            if len(outs) > n: raise AssertionError(f"more outcomes ({len(outs)}) than calls ({n})")
    except Exception as e:
        key = (type(e).__name__, str(e)[:60])
        if key not in bad: bad[key] = ([h for h, _ in frames], n, traceback.format_exc().splitlines()[-3:])
    finally:
        for fd in (out_fd, st_fd, box.results, box.diag): os.close(fd)
for k, v in bad.items(): print(k, "\n   calls", v[1], v[0], "\n   ", v[2])
