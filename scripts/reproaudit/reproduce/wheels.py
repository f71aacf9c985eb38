"""Requirements as pinned wheels, fetched on the host: no contributor code runs with network.

The install phase has two halves. On the host, with network, pip only
*downloads* wheels (``--only-binary=:all:``): a wheel is unpacked, never built,
so no ``setup.py`` or build backend of anyone's runs there. Then, inside the
sandbox with no network at all, pip installs from that folder alone
(``--no-index --find-links``). A requirement that has no wheel (a source
distribution only) is refused with a message naming it.

The requirements file is read strictly before pip sees any of it (pip would
fetch URLs, build paths and expand ``${VARS}`` on the host): each requirement
pinned with ``==`` (extras, environment markers and ``--hash`` allowed), plus
only ``--no-index``, ``--require-hashes``, ``--only-binary :all:`` and
``--find-links DIR`` with DIR a folder inside the logbook's own. pip is then
given the file as read here, rewritten from the parsed requirements.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from .confine import inside

HASH = re.compile(r"--hash[=\s]+(sha256|sha384|sha512):([0-9a-fA-F]+)")
HINT = "pin a wheel: `name==version` of a release that publishes a wheel for this Python"
FLAGS = {"--no-index", "--require-hashes", "--only-binary=:all:", "--only-binary :all:"}


@dataclass(frozen=True)
class Pinned:
    """One requirement as read: its line, its text (no hashes) and its hashes."""

    line: int
    text: str
    name: str
    hashes: tuple[str, ...]

    def as_line(self) -> str:
        return " ".join([self.text, *(f"--hash={h}" for h in self.hashes)])


@dataclass
class Requirements:
    """A requirements file as read strictly: what pip may install, and from where."""

    pinned: list[Pinned] = field(default_factory=list)
    find_links: list[Path] = field(default_factory=list)
    no_index: bool = False

    @property
    def hashed(self) -> bool:
        return any(p.hashes for p in self.pinned)

    def text(self) -> str:
        """The file pip reads: the requirements alone, one a line."""
        return "".join(p.as_line() + "\n" for p in self.pinned)


class RequirementRefused(ValueError):
    """A requirements line reproaudit will not hand to pip; the message says where and why."""


def read_requirements(text: str, source: str, folder: Path) -> Requirements:
    """Parse ``text`` (the file ``source``, in ``folder``); raise ``RequirementRefused``."""
    out = Requirements()
    for number, line in _logical_lines(text):
        where = f"{source}:{number}"
        if "${" in line:
            raise RequirementRefused(f"{where}: {line!r}: environment variables are not expanded")
        hashes = tuple(f"{kind}:{digest.lower()}" for kind, digest in HASH.findall(line))
        rest = HASH.sub("", line).strip()
        if rest in FLAGS:
            out.no_index |= rest == "--no-index"
            continue
        link = re.fullmatch(r"(?:--find-links|-f)[=\s]+(\S+)", rest)
        if link:
            out.find_links.append(_local_folder(link[1], where, folder))
            continue
        if rest.startswith("-"):
            raise RequirementRefused(
                f"{where}: {rest!r}: only requirements pinned with ==, --hash, --no-index, "
                "--require-hashes and --find-links <a folder beside this file> are accepted "
                "(no indexes, URLs, -e, -r or -c)"
            )
        out.pinned.append(_pinned(rest, hashes, number, where))
    return out


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each logical line: comments cut, continuations joined."""
    out: list[tuple[int, str]] = []
    held, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*$", "", raw)
        if not held:
            start = number
        if line.endswith("\\"):
            held += line[:-1] + " "
            continue
        line, held = (held + line).strip(), ""
        if line:
            out.append((start, line))
    if held.strip():
        out.append((start, held.strip()))
    return out


def _pinned(text: str, hashes: tuple[str, ...], number: int, where: str) -> Pinned:
    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        raise RequirementRefused(f"{where}: {text!r} is not a requirement: {exc}") from None
    specs = list(req.specifier)
    exact = len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version
    if req.url or not exact:
        raise RequirementRefused(
            f"{where}: {text!r} is not pinned to one version of a package on an index "
            f"(no URLs, paths or ranges); {HINT}"
        )
    return Pinned(number, str(req), canonicalize_name(req.name), hashes)


def _local_folder(raw: str, where: str, folder: Path) -> Path:
    path = folder / raw
    if "://" in raw or raw.startswith("/") or not inside(str(path), str(folder)):
        raise RequirementRefused(
            f"{where}: --find-links {raw!r}: only a folder beside the requirements file is "
            "accepted (no URLs, nothing outside the logbook's folder)"
        )
    if not path.is_dir():
        raise RequirementRefused(f"{where}: --find-links {raw!r} is not a folder")
    return path


# What a sandbox's interpreter is, printed by itself with no network (docker images).
PROBE = (
    "import sys, sysconfig; "
    "print(sys.implementation.name, '%d.%d' % sys.version_info[:2], sysconfig.get_platform())"
)


def target_args(probe: str) -> list[str]:
    """pip download's flags for wheels that fit another interpreter (the PROBE's answer).

    CPython on glibc Linux only: the manylinux tags, newest first, down to manylinux1.
    """
    parts = probe.split()
    if len(parts) != 3 or parts[0] != "cpython" or not parts[2].startswith("linux-"):
        raise RequirementRefused(
            f"the image's Python is {probe.strip()[:80]!r}: requirements install only into "
            "CPython on glibc Linux (manylinux wheels)"
        )
    version, arch = parts[1], parts[2].split("-", 1)[1]
    abi = "cp" + version.replace(".", "")
    argv = ["--implementation", "cp", "--python-version", version]
    argv += ["--abi", abi, "--abi", "abi3", "--abi", "none"]
    platforms = [f"manylinux_2_{minor}_{arch}" for minor in range(40, 4, -1)]
    platforms += [f"manylinux2014_{arch}", f"manylinux2010_{arch}", f"manylinux1_{arch}"]
    for platform in [*platforms, f"linux_{arch}"]:
        argv += ["--platform", platform]
    return argv


def download_argv(
    reqs: Requirements, req_file: Path, dest: Path, target: list[str] | None = None
) -> list[str]:
    """pip on the host: download wheels only (``--only-binary=:all:``), with dependencies,
    for this Python or for the ``target`` one (``target_args``)."""
    argv = [sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--no-input"]
    argv += target or []
    argv += ["--disable-pip-version-check", "--progress-bar", "off", "--dest", str(dest)]
    argv += ["-r", str(req_file)]
    if reqs.no_index:
        argv.append("--no-index")
    for link in reqs.find_links:
        argv += ["--find-links", str(link)]
    return argv + (["--require-hashes"] if reqs.hashed else [])


def install_argv(python: str, req_file: str, wheels: str, target: str, hashed: bool) -> list[str]:
    """pip in the sandbox: install from the downloaded wheels alone, no index, no build."""
    argv = [python, "-m", "pip", "install", "--quiet", "--no-input", "--disable-pip-version-check"]
    argv += ["--no-cache-dir", "--no-index", "--find-links", wheels, "--only-binary=:all:"]
    argv += ["--target", target, "-r", req_file]
    return argv + (["--require-hashes"] if hashed else [])


def download_env() -> dict[str, str]:
    """The host pip's environment: the operator's pip settings and proxies, nothing else."""
    keep = {"PATH", "HOME", "LANG", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "SSL_CERT_FILE"}
    env = {k: v for k, v in os.environ.items() if k in keep or k.startswith("PIP_")}
    env.setdefault("LANG", "C.UTF-8")
    return {k: v for k, v in env.items() if k.upper() != "PIP_NO_BINARY"}


def why_no_wheel(log: str, reqs: Requirements, source: str) -> str | None:
    """The message for a requirement pip found no wheel for, naming it, or None."""
    found = re.search(r"No matching distribution found for (\S+)", log)
    if not found:
        return None
    name = canonicalize_name(re.split(r"[\[=<>!~;]", found[1], maxsplit=1)[0])
    for pinned in reqs.pinned:
        if pinned.name == name:
            return (
                f"{source}:{pinned.line}: {pinned.text!r} has no wheel pip can use here (a "
                "source distribution only, or no such release): re-runs install wheels only, "
                f"so that no one's build code runs; {HINT}"
            )
    return (
        f"{source}: {found[1]!r} (a dependency) has no wheel pip can use here: re-runs install "
        f"wheels only; {HINT}, and pin its dependencies too"
    )
