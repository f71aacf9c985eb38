"""The bwrap sandbox against real attacks: each one is a logbook run for real.

A contributor's command tries to read the parent's secrets, outlive the run,
fork-bomb, fill the disk, reach a server on 127.0.0.1, forge another
logbook's record, and survive reproaudit being SIGKILLed. Skipped (with the
reason) only where bubblewrap cannot run.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reproaudit.errors import ReproauditError
from reproaudit.judge.inputs import read_rerun
from reproaudit.loader import load_model
from reproaudit.models import Logbook
from reproaudit.reproduce import Limits, reproduce_logbook
from reproaudit.reproduce.sandbox import bwrap_available, choose_sandbox
from reproaudit.rerun_inputs import read_inputs
from tests.test_reproduce import PAPER, _alive_with, add_logbook, outputs_of, run_json

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap cannot run here")


def _running(text: str) -> bool:
    """One look: whether a host process has ``text`` in its command line."""
    needle = text.encode()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if needle in (proc / "cmdline").read_bytes():
                    return True
            except OSError:
                continue
    return False


SMALL = dict(processes=48, memory_bytes=2 << 30, file_bytes=8 << 20, writable_bytes=32 << 20)


def test_the_parent_environment_and_command_line_are_invisible(mini_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_sEcReT123")
    script = (
        "import json, os\n"
        "seen = {}\n"
        "for pid in os.listdir('/proc'):\n"
        "    if pid.isdigit():\n"
        "        for what in ('environ', 'cmdline'):\n"
        "            try: seen[pid + what] = open(f'/proc/{pid}/{what}', 'rb').read().decode()\n"
        "            except OSError as e: seen[pid + what] = str(e)\n"
        "seen['ppid'] = os.getppid()\n"
        "os.makedirs('results')\n"
        "json.dump(seen, open('results/metrics.json', 'w'))\n"
    )
    out = tmp_path / "out"
    rel = add_logbook(mini_repo, "peek-1", "python peek.py", {"peek.py": script})
    record = reproduce_logbook(mini_repo, rel, out=out)
    assert record.status == "passed", record.log_tail
    seen = json.dumps(outputs_of(out, "peek-1"))
    assert "sEcReT" not in seen
    assert str(out) not in seen  # the --out folder never appears in a visible command line
    assert str(os.getpid()) not in json.loads(seen)  # only the sandbox's own processes


def test_a_double_forked_setsid_child_dies_with_the_run(mini_repo, tmp_path):
    token = "time.sleep(77.125)"
    script = (
        "import os, sys, subprocess\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        subprocess.Popen([sys.executable, '-c', 'import time; {token}'])\n"
        "    os._exit(0)\n"
        "import time; time.sleep(0.5)\n"
    )
    rel = add_logbook(mini_repo, "escape-1", "python esc.py", {"esc.py": script}, outputs=None)
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert record.status == "passed", record.log_tail
    assert not _alive_with(token)


def test_a_fork_bomb_meets_the_process_limit(mini_repo, tmp_path):
    script = (
        "import os, time\n"
        "n = 0\n"
        "try:\n"
        "    while n < 5000:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(30); os._exit(0)\n"
        "        n += 1\n"
        "except OSError as e:\n"
        "    print('fork refused after', n, e.errno, flush=True)\n"
    )
    rel = add_logbook(mini_repo, "bomb-1", "python bomb.py", {"bomb.py": script}, outputs=None)
    started = time.monotonic()
    record = reproduce_logbook(
        mini_repo, rel, out=tmp_path / "out", limits=Limits(wall_s=20, **SMALL)
    )
    assert "fork refused after" in record.log_tail, record.log_tail
    assert int(record.log_tail.split("fork refused after ")[1].split()[0]) < 48
    assert time.monotonic() - started < 15
    assert run_json(tmp_path / "out", "bomb-1")["limits"]["processes"] == 48


def test_writing_a_gibibyte_meets_the_size_limits(mini_repo, tmp_path):
    script = (
        "import os\n"
        "chunk = b'x' * (1 << 20)\n"
        "for name in ('big1', '/tmp/big2'):\n"
        "    try:\n"
        "        with open(name, 'wb') as f:\n"
        "            for _ in range(1024): f.write(chunk)\n"
        "    except OSError as e:\n"
        "        print('write refused', name, e.errno, flush=True)\n"
    )
    rel = add_logbook(mini_repo, "fill-1", "python fill.py", {"fill.py": script}, outputs=None)
    record = reproduce_logbook(
        mini_repo, rel, out=tmp_path / "out", limits=Limits(wall_s=30, **SMALL)
    )
    assert "write refused big1 27" in record.log_tail, record.log_tail  # EFBIG: RLIMIT_FSIZE
    assert "write refused /tmp/big2" in record.log_tail


def test_no_network_not_even_to_a_server_on_localhost(mini_repo, tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted = []

    def serve():
        end = time.monotonic() + 10
        while time.monotonic() < end and not accepted:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            accepted.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    script = (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=2); print('CONNECTED')\n"
        "except OSError as e:\n"
        "    print('no network:', e)\n"
    )
    rel = add_logbook(mini_repo, "net-1", "python net.py", {"net.py": script}, outputs=None)
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    thread.join(timeout=1)
    server.close()
    assert "no network:" in record.log_tail and "CONNECTED" not in record.log_tail
    assert accepted == []


def test_a_record_for_another_logbook_cannot_be_forged(mini_repo, tmp_path):
    out = tmp_path / "out"
    victim = reproduce_logbook(mini_repo, f"logbooks/{PAPER}/ann-1.yaml", out=out)
    before = (victim.folder / "run.json").read_bytes()
    target = out / PAPER / "ann-1"
    script = (
        "import json, os\n"
        f"for folder in ({str(target)!r}, '/src'):\n"
        "    try:\n"
        "        os.makedirs(folder, exist_ok=True)\n"
        "        open(os.path.join(folder, 'run.json'), 'w').write('{\"status\": \"failed\"}')\n"
        "        print('WROTE', folder)\n"
        "    except OSError as e:\n"
        "        print('refused', folder, e.errno)\n"
    )
    rel = add_logbook(mini_repo, "forge-1", "python forge.py", {"forge.py": script}, outputs=None)
    record = reproduce_logbook(mini_repo, rel, out=out)
    assert "WROTE /src" not in record.log_tail
    assert (target / "run.json").read_bytes() == before


def test_sigkill_of_reproaudit_kills_everything_it_started(mini_repo, tmp_path):
    token = "time.sleep(93.375)"
    script = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; {token}'])\n"
        "time.sleep(60)\n"
    )
    rel = add_logbook(mini_repo, "kill-1", "python k.py", {"k.py": script}, outputs=None)
    code = (
        "import sys; from pathlib import Path\n"
        "from reproaudit.reproduce import reproduce_logbook\n"
        f"reproduce_logbook(Path({str(mini_repo)!r}), {rel!r}, out=Path({str(tmp_path / 'o')!r}))\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not _running(token):
            time.sleep(0.1)
        assert _running(token), "the command never started"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert not _alive_with(token), "a child outlived the SIGKILLed reproaudit"
    finally:
        proc.kill()


def test_deep_outputs_are_refused_with_a_reason(mini_repo, tmp_path):
    script = (
        "import os\nos.makedirs('results')\n"
        "open('results/metrics.json', 'w').write('[' * 100000 + ']' * 100000)\n"
    )
    out = tmp_path / "out"
    rel = add_logbook(mini_repo, "deep-1", "python deep.py", {"deep.py": script})
    record = reproduce_logbook(mini_repo, rel, out=out)
    assert not record.outputs_written
    assert "results/metrics.json is nested deeper than 64 levels; not recorded" in record.log_tail
    # and a deep outputs.json put there by hand is refused by the judge's reader, not a crash
    (out / PAPER / "deep-1" / "outputs.json").write_text("[" * 100000 + "]" * 100000)
    book = load_model(mini_repo / rel, Logbook, rel)
    got = read_rerun(out, PAPER, "deep-1", read_inputs(mini_repo, PAPER, "deep-1", book))
    assert got is not None and got.rerun.stale and got.rerun.outputs is None


def test_none_is_refused_in_ci_and_never_the_default():
    with pytest.raises(ReproauditError) as err:
        choose_sandbox("none", "cpu", environ={"GITHUB_ACTIONS": "true"})
    assert "--sandbox none is refused in CI" in str(err.value)
    assert choose_sandbox(None, "cpu", environ={}) == "bwrap"
    assert choose_sandbox("none", "cpu", environ={}) == "none"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_reproaudit_leaves_nothing_running(mini_repo, tmp_path, sig):
    token = f"time.sleep(88.{int(sig)})"
    script = (
        "import os, subprocess, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        f"    subprocess.Popen([sys.executable, '-c', 'import time; {token}'])\n"
        "    os._exit(0)\n"
        "time.sleep(60)\n"
    )
    rel = add_logbook(mini_repo, f"int-{int(sig)}", "python i.py", {"i.py": script}, outputs=None)
    proc = subprocess.Popen(
        ["reproaudit", "reproduce", rel, "--repo", str(mini_repo), "--out", str(tmp_path / "o")]
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not _running(token):
            time.sleep(0.1)
        assert _running(token), "the command never started"
        proc.send_signal(sig)
        proc.wait(timeout=10)
        assert not _alive_with(token), f"a child outlived reproaudit after {sig.name}"
    finally:
        proc.kill()


def test_the_memory_limit_is_real(mini_repo, tmp_path):
    script = (
        "try:\n"
        "    block = bytearray(600 * 1024 * 1024)\n"
        "    print('ALLOCATED', len(block))\n"
        "except MemoryError:\n"
        "    print('memory refused')\n"
    )
    rel = add_logbook(mini_repo, "mem-1", "python m.py", {"m.py": script}, outputs=None)
    limits = Limits(wall_s=20, **{**SMALL, "memory_bytes": 256 << 20})
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out", limits=limits)
    assert "memory refused" in record.log_tail and "ALLOCATED" not in record.log_tail


def test_two_concurrent_reruns_of_one_logbook_do_not_mix(mini_repo, tmp_path):
    script = (
        "import json, os, random, sys, time\n"
        "tag = os.urandom(8).hex()\n"
        "os.makedirs('results')\n"
        "time.sleep(random.random() / 2)\n"
        "json.dump({'tag': tag}, open('results/metrics.json', 'w'))\n"
        "print('TAG', tag)\n"
    )
    out = tmp_path / "out"
    rel = add_logbook(mini_repo, "twice-1", "python t.py", {"t.py": script})
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(reproduce_logbook(mini_repo, rel, out=out)))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.status for r in results] == ["passed", "passed"]
    run = run_json(out, "twice-1")
    tag = outputs_of(out, "twice-1")["tag"]
    assert f"TAG {tag}" in run["log_tail"]  # outputs and run.json come from the same run
    assert sorted(p.name for p in (out / PAPER).iterdir()) == ["twice-1"]  # nothing left over


def test_a_run_that_meets_a_limit_says_which(mini_repo, tmp_path):
    script = "open('big', 'wb').write(b'x' * (32 << 20))\n"
    rel = add_logbook(mini_repo, "fsize-1", "python f.py", {"f.py": script}, outputs=None)
    limits = Limits(wall_s=20, **SMALL)
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out", limits=limits)
    assert record.status == "failed"
    assert (
        "[reproaudit] the output shows 'File too large': the file size limit "
        f"(file_bytes = {8 << 20}) was reached" in record.log_tail
    )


def test_no_capabilities_so_no_unbounded_tmpfs_and_no_remount(mini_repo, tmp_path):
    script = (
        "import os, subprocess\n"
        "print('CapEff', [l for l in open('/proc/self/status') if l.startswith('CapEff')])\n"
        "os.makedirs('/tmp/m', exist_ok=True)\n"
        "for argv in (['mount', '-t', 'tmpfs', 'none', '/tmp/m'],\n"
        "             ['mount', '-o', 'remount,rw,bind', '/usr']):\n"
        "    done = subprocess.run(argv, capture_output=True)\n"
        "    print(argv[1], 'exit', done.returncode)\n"
    )
    rel = add_logbook(mini_repo, "caps-1", "python c.py", {"c.py": script}, outputs=None)
    record = reproduce_logbook(mini_repo, rel, out=tmp_path / "out")
    assert "CapEff:\\t0000000000000000" in record.log_tail, record.log_tail
    assert "-t exit 0" not in record.log_tail and "-o exit 0" not in record.log_tail
    assert "-t exit" in record.log_tail and "-o exit" in record.log_tail


def test_an_interpreter_installed_under_tmp_still_runs_the_sandbox(mini_repo, tmp_path):
    """A CI checkout under /tmp has its venv there: the private /tmp must not hide it."""
    import site

    venv = tmp_path / "venv"  # tmp_path is under /tmp
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    scripts = Path(__file__).resolve().parents[2] / "scripts"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(scripts), *site.getsitepackages()])}
    out = tmp_path / "out"
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "reproaudit", "reproduce",
         f"logbooks/{PAPER}/ann-1.yaml", "--repo", str(mini_repo), "--out", str(out),
         "--sandbox", "bwrap"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    record = run_json(out, "ann-1")
    assert record["status"] == "passed", (done.stderr, record["log_tail"])
    assert record["sandbox"] == "bwrap"
