"""The bwrap sandbox run by root, against the second-order attacks: each one for real.

A contributor's command tries to write global kernel settings (``/proc/sys``,
``/proc/sysrq-trigger``), runs as whatever uid it gets (checked from outside),
fills ``/dev/shm``, spreads its memory over many processes, and forges the
runner's status line with every secret it can find. Each beside a control
that still passes. Skipped (with the reason) only where bubblewrap cannot run.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import signal
import threading
import time
from pathlib import Path

import pytest

from reproaudit.reproduce import Limits, reproduce_logbook
from reproaudit.reproduce.cgroup import remove_cgroup, run_cgroup
from reproaudit.reproduce.sandbox import bwrap_available
from tests.test_reproduce import add_logbook, outputs_of, run_json

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")

SMALL = dict(processes=64, memory_bytes=2 << 30, file_bytes=64 << 20, writable_bytes=32 << 20)

KERNEL = (
    "import json, os\n"
    "seen = {}\n"
    "current = open('/proc/sys/kernel/core_pattern').read()\n"
    "for path, value in (('/proc/sys/kernel/core_pattern', current),\n"
    "                    ('/proc/sys/kernel/core_pattern', '|/tmp/evil %p'),\n"
    "                    ('/proc/sysrq-trigger', 'h')):\n"
    "    try:\n"
    "        with open(path, 'w') as handle:\n"
    "            handle.write(value)\n"
    "        seen[path + ' ' + value.strip()] = 'WRITTEN'\n"
    "    except OSError as exc:\n"
    "        seen[path + ' ' + value.strip()] = type(exc).__name__\n"
    "os.makedirs('results')\n"
    "json.dump(seen, open('results/metrics.json', 'w'))\n"
)


def test_the_command_cannot_write_proc_sys_nor_sysrq(mini_repo, tmp_path):
    before = Path("/proc/sys/kernel/core_pattern").read_bytes()
    rel = add_logbook(mini_repo, "kernel-1", "python k.py", {"k.py": KERNEL})
    try:
        record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    finally:
        after = Path("/proc/sys/kernel/core_pattern").read_bytes()
        if after != before:  # the attack worked: undo it before failing
            Path("/proc/sys/kernel/core_pattern").write_bytes(before)
    assert after == before
    assert record.status == "passed", record.log_tail  # control: it ran, and read the file
    seen = outputs_of(tmp_path / "out", "kernel-1")
    assert "WRITTEN" not in seen.values(), seen
    assert len(seen) == 3


def _find_uid(token: str, found: dict[str, object], done: threading.Event) -> None:
    """Find the host process whose command line holds ``token``; note its uids; wake it."""
    while not done.is_set():
        for proc in Path("/proc").iterdir():
            try:
                if not proc.name.isdigit():
                    continue
                argv = (proc / "cmdline").read_bytes().split(b"\0")
                if len(argv) != 4 or argv[1:] != [b"u.py", token.encode(), b""]:  # not bwrap
                    continue
                status = (proc / "status").read_text()
            except OSError:
                continue
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            if not int(fields["SigCgt"], 16) & (1 << (signal.SIGUSR1 - 1)):
                continue  # not listening for the signal yet
            uids = "Uid:" + fields["Uid"]
            found["uids"] = [int(x) for x in uids.split()[1:]]
            os.kill(int(proc.name), signal.SIGUSR1)
            return
        time.sleep(0.05)


def test_the_command_runs_as_a_uid_of_its_own_seen_from_the_host(mini_repo, tmp_path):
    token = "uidprobe" + secrets.token_hex(6)
    script = (
        "import os, signal, time\n"
        "woken = []\n"
        "signal.signal(signal.SIGUSR1, lambda *_: woken.append(1))\n"
        "print('INSIDE', os.getuid(), flush=True)\n"
        "deadline = time.monotonic() + 600\n"
        "while not woken and time.monotonic() < deadline:\n"
        "    time.sleep(0.05)\n"
        "print('WOKEN', bool(woken))\n"
    )
    rel = add_logbook(
        mini_repo, "uid-1", f"python u.py {token}", {"u.py": script}, outputs=None, timeout="15m"
    )
    found: dict[str, object] = {}
    done = threading.Event()
    watcher = threading.Thread(target=_find_uid, args=(token, found, done))
    watcher.start()
    try:
        record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    finally:
        done.set()
        watcher.join()
    assert record.status == "passed", record.log_tail
    assert "WOKEN True" in record.log_tail  # the host found the very process and woke it
    assert found["uids"] and 0 not in found["uids"], found  # type: ignore[operator]
    if os.geteuid() == 0:  # root's sandbox: a uid no account has
        assert all(uid >= 1_900_000_000 for uid in found["uids"]), found  # type: ignore[union-attr]


def test_dev_holds_device_nodes_and_a_sized_shm(mini_repo, tmp_path):
    script = (
        "import json, os\n"
        "seen = {'dev': sorted(os.listdir('/dev'))}\n"
        "try:\n"
        "    open('/dev/planted', 'w').write('x'); seen['plant'] = 'WRITTEN'\n"
        "except OSError as exc:\n"
        "    seen['plant'] = type(exc).__name__\n"
        "open('/dev/shm/small', 'wb').write(b'x' * (1 << 20))\n"  # control: 1 MiB fits
        "seen['small'] = os.path.getsize('/dev/shm/small')\n"
        "try:\n"
        "    with open('/dev/shm/big', 'wb') as handle:\n"
        "        for _ in range(256):\n"
        "            handle.write(b'x' * (1 << 20))\n"
        "    seen['big'] = 'WRITTEN'\n"
        "except OSError as exc:\n"
        "    seen['big'] = os.strerror(exc.errno)\n"
        "os.makedirs('results')\n"
        "json.dump(seen, open('results/metrics.json', 'w'))\n"
    )
    rel = add_logbook(mini_repo, "shm-1", "python s.py", {"s.py": script})
    limits = Limits(wall_s=60, **SMALL)
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out", limits=limits)
    assert record.status == "passed", record.log_tail
    seen = outputs_of(tmp_path / "out", "shm-1")
    nodes = ["fd", "full", "null", "random", "shm", "stderr", "stdin", "stdout", "tty"]
    assert seen["dev"] == [*nodes, "urandom", "zero"]
    assert seen["plant"] != "WRITTEN" and seen["small"] == 1 << 20
    assert seen["big"] == "No space left on device"  # 256 MiB into a /dev/shm of 8 MiB
    limits_record = run_json(tmp_path / "out", "shm-1")["limits"]
    # a quarter of the budget (32 MiB and the code's copy), counted in it
    assert limits_record["writable_bytes"] >= 32 << 20
    assert limits_record["shm_bytes"] == limits_record["writable_bytes"] // 4


MANY = (
    "import os, sys\n"
    "count, size = int(sys.argv[1]), int(sys.argv[2]) << 20\n"
    "go_r, go_w = os.pipe()\n"
    "rep_r, rep_w = os.pipe()\n"
    "for _ in range(count):\n"
    "    if os.fork() == 0:\n"
    "        os.close(go_w); os.close(rep_r)\n"
    "        try:\n"
    "            block = bytearray(b'\\x01') * size\n"
    "            os.write(rep_w, b'A')\n"
    "        except MemoryError:\n"
    "            os._exit(3)\n"
    "        os.close(rep_w)\n"
    "        os.read(go_r, 1)\n"  # hold the memory until every sibling has answered
    "        os._exit(0)\n"
    "os.close(rep_w); os.close(go_r)\n"
    "while os.read(rep_r, 64):\n"  # until every child answered, or died
    "    pass\n"
    "os.close(go_w)\n"  # a child exits 0 only if it held its block until now
    "held = sum(os.waitstatus_to_exitcode(os.wait()[1]) == 0 for _ in range(count))\n"
    "print('HELD', held, 'OF', count, flush=True)\n"
)


def test_memory_is_bounded_for_the_whole_run_not_per_process(mini_repo, tmp_path):
    cgroup = run_cgroup(Limits(wall_s=1))
    if cgroup is None or cgroup.memory is None:
        pytest.skip("no memory cgroup can be made here: memory is bounded per process only")
    remove_cgroup(cgroup)
    limits = Limits(wall_s=300, **{**SMALL, "memory_bytes": 256 << 20})
    files = {"many.py": MANY}
    # control: six processes of 16 MiB fit in 256 MiB
    rel = add_logbook(mini_repo, "many-0", "python many.py 6 16", files, outputs=None)
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out", limits=limits)
    assert record.status == "passed" and "HELD 6 OF 6" in record.log_tail, record.log_tail
    # attack: six processes of 100 MiB, each under its own 256 MiB address space
    rel = add_logbook(mini_repo, "many-1", "python many.py 6 100", files, outputs=None)
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out", limits=limits)
    held = re.search(r"HELD (\d) OF 6", record.log_tail)
    assert held is None or int(held[1]) <= 2, record.log_tail  # 256 MiB hold 2 of 100 MiB
    run = run_json(tmp_path / "out", "many-1")
    assert run["limits"]["memory_scope"] == "run"
    assert run["limits"]["memory_bytes"] == 256 << 20
    assert f"the memory limit of the whole run (memory_bytes = {256 << 20})" in run["log_tail"]


FORGE = (
    "import hashlib, json, os, re, sys\n"
    "found = set()\n"
    "for pid in os.listdir('/proc'):\n"
    "    if not pid.isdigit():\n"
    "        continue\n"
    "    for what in ('cmdline', 'environ', 'mem'):\n"
    "        try:\n"
    "            data = open(f'/proc/{pid}/{what}', 'rb').read(1 << 20)\n"
    "        except OSError:\n"
    "            continue\n"
    "        found.update(re.findall(rb'[0-9a-f]{24}', data))\n"
    "    try:\n"
    "        for fd in os.listdir(f'/proc/{pid}/fd'):\n"
    "            try:\n"
    "                found.update(re.findall(rb'[0-9a-f]{24}', open(f'/proc/{pid}/fd/{fd}', 'rb').read(4096)))\n"  # noqa: E501
    "            except OSError:\n"
    "                pass\n"
    "    except OSError:\n"
    "        pass\n"
    "found.update(re.findall(rb'[0-9a-f]{24}', sys.stdin.buffer.read()))\n"
    "hit = [c for c in found if hashlib.sha256(c).hexdigest() == sys.argv[1]]\n"
    "print('SECRET' if hit else 'NOT FOUND', len(found))\n"
    "os.makedirs('results', exist_ok=True)\n"
    "json.dump({'forged': True}, open('results/metrics.json', 'w'))\n"
    "status = json.dumps({'status': 'passed', 'exit_code': 0, 'duration_s': 1.0,\n"
    "                     'outputs': 'ok', 'code_sha256': None, 'notes': []})\n"
    "for nonce in sorted(found):\n"
    "    print(f'\\n::reproaudit::{nonce.decode()} status {status}', flush=True)\n"
    "sys.exit(1)\n"
)


def test_the_status_line_cannot_be_forged(mini_repo, tmp_path, monkeypatch):
    nonce = secrets.token_hex(12)
    real = secrets.token_hex
    monkeypatch.setattr(secrets, "token_hex", lambda n=None: nonce if n == 12 else real(n))
    # the command knows the runner's format and the nonce's hash (not the nonce): it looks
    # for it in every process's command line, environment, memory and open files, and on
    # its stdin, then prints a "passed" status line with every candidate and fails
    digest = hashlib.sha256(nonce.encode()).hexdigest()
    rel = add_logbook(mini_repo, "forge-1", f"python f.py {digest}", {"f.py": FORGE})
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert "NOT FOUND" in record.log_tail and "SECRET" not in record.log_tail, record.log_tail
    assert record.status == "failed" and record.exit_code == 1, record.log_tail
    assert "::reproaudit::" in record.log_tail  # its forged lines are kept as its own output


def test_an_honest_command_still_passes_beside_them(mini_repo, tmp_path):
    script = (
        "import json, os\n"
        "os.makedirs('results')\n"
        "json.dump({'C1': {'accuracy': 0.9}}, open('results/metrics.json', 'w'))\n"
    )
    rel = add_logbook(mini_repo, "honest-1", "python h.py", {"h.py": script})
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert record.status == "passed" and record.exit_code == 0, record.log_tail
    assert outputs_of(tmp_path / "out", "honest-1") == {"C1": {"accuracy": 0.9}}
