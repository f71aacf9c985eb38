"""The docker sandbox: what self-hosted GPU runners have (docker + NVIDIA container toolkit).

The run phase has no network (``--network none``), a read-only root
(``--read-only``), no capabilities, no privilege gain, bounded processes,
memory and file size, a bounded tmpfs at ``/tmp`` where the runner copies the
code, the code read-only at ``/src``, GPUs as the logbook's hardware asks, and
the logbook's own image. The install phase (requirements) is a separate
container, also with no network, that installs wheels downloaded on the host
(``wheels.py``) and whose only writable mount is the dependencies folder.
``/dev`` is docker's own (device nodes only) with ``/dev/shm`` sized from the
writable budget; ``--memory`` is a cgroup bounding the whole container. The
runner's nonce arrives on its standard input (``-i``), never in its argv.
The container is named, so an interrupted reproaudit removes it
(``docker rm -f``); if reproaudit is SIGKILLed the runner inside still stops
the command at the logbook's timeout.
"""

from __future__ import annotations

import re

from .sandbox import Launch, Limits

DEFAULT_IMAGE = "python:3.12-slim"
SANDBOX_UID = "65534:65534"


def gpu_count(hardware: str) -> int:
    """How many GPUs a hardware name asks for: ``a100x4`` is 4, ``t4-small`` is 1, cpu 0."""
    if hardware.startswith("cpu"):
        return 0
    m = re.search(r"x(\d+)$", hardware)
    return int(m[1]) if m else 1


def docker_argv(launch: Launch, limits: Limits, name: str, *, docker: str = "docker") -> list[str]:
    """The exact ``docker run`` command line for ``launch`` (unit-tested)."""
    argv = [docker, "run", "--rm", "-i", "--name", name, "--pull", "missing"]
    argv += ["--network", "none"]
    argv += ["--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges"]
    argv += ["--pids-limit", str(limits.processes)]
    argv += ["--memory", str(limits.memory_bytes), "--memory-swap", str(limits.memory_bytes)]
    argv += ["--ulimit", f"fsize={limits.file_bytes}:{limits.file_bytes}"]
    argv += ["--ulimit", "core=0:0"]
    tmp, shm = limits.shares()
    argv += ["--tmpfs", f"/tmp:rw,exec,nosuid,nodev,size={tmp}", "--shm-size", str(shm)]
    argv += ["--user", SANDBOX_UID, "--workdir", "/tmp"]
    gpus = gpu_count(launch.hardware)
    if gpus:
        argv += ["--gpus", str(gpus)]
    argv += ["--mount", f"type=bind,source={launch.src},target=/src,readonly"]
    if launch.deps is not None:
        argv += ["--mount", f"type=bind,source={launch.deps},target=/deps,readonly"]
    for host_path, inside in launch.extra_ro:
        argv += ["--mount", f"type=bind,source={host_path},target={inside},readonly"]
    for host_path, inside in launch.extra_rw:
        argv += ["--mount", f"type=bind,source={host_path},target={inside}"]
    for key, value in sorted(launch.env.items()):
        argv += ["--env", f"{key}={value}"]
    argv += ["--entrypoint", "python3", launch.image or DEFAULT_IMAGE]
    return [*argv, *launch.runner_argv]
