"""Reading a requirements file strictly, before the host's pip sees any of it (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reproaudit.reproduce.wheels import (
    RequirementRefused,
    download_argv,
    install_argv,
    read_requirements,
    target_args,
    why_no_wheel,
)

SRC = "ann-1/requirements.txt"


def test_pinned_requirements_with_hashes_markers_and_continuations(tmp_path: Path):
    (tmp_path / "wheels").mkdir()
    text = (
        "# numbers\n"
        "NumPy==2.1.0 \\\n"
        "    --hash=sha256:ABCDEF0123  # pinned\n"
        "tomli==2.0.1 ; python_version < '3.11'\n"
        "--find-links wheels\n"
        "--no-index\n"
        "requests[socks]===2.32.3\n"
    )
    reqs = read_requirements(text, SRC, tmp_path)
    assert [(p.line, p.name) for p in reqs.pinned] == [(2, "numpy"), (4, "tomli"), (7, "requests")]
    assert reqs.hashed and reqs.no_index and reqs.find_links == [tmp_path / "wheels"]
    assert reqs.text() == (
        "NumPy==2.1.0 --hash=sha256:abcdef0123\n"
        'tomli==2.0.1; python_version < "3.11"\n'
        "requests[socks]===2.32.3\n"
    )
    argv = download_argv(reqs, tmp_path / "r.txt", tmp_path / "dest")
    assert argv[3:5] == ["download", "--only-binary=:all:"] and "--require-hashes" in argv
    assert argv[argv.index("--find-links") + 1] == str(tmp_path / "wheels")
    inside = install_argv("py", "/src/r.txt", "/wheels", "/deps", False)
    assert inside[inside.index("--no-index") : inside.index("--no-index") + 4] == [
        "--no-index", "--find-links", "/wheels", "--only-binary=:all:",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("numpy>=2\n", "1: 'numpy>=2' is not pinned to one version"),
        ("numpy==2.*\n", "1: 'numpy==2.*' is not pinned to one version"),
        ("numpy\n", "1: 'numpy' is not pinned to one version"),
        ("pkg @ https://example.org/pkg.whl\n", "is not pinned to one version of a package"),
        ("./local-folder\n", "'./local-folder' is not a requirement"),
        ("git+https://example.org/x.git\n", "is not a requirement"),
        ("-e .\n", "'-e .': only requirements pinned with =="),
        ("-r other.txt\n", "'-r other.txt': only requirements pinned with =="),
        ("--index-url https://example.org\n", "only requirements pinned with =="),
        ("--trusted-host example.org\n", "only requirements pinned with =="),
        ("--find-links https://example.org/\n", "only a folder beside the requirements file"),
        ("--find-links ../../elsewhere\n", "only a folder beside the requirements file"),
        ("--find-links /opt/wheels\n", "only a folder beside the requirements file"),
        ("numpy==${VERSION}\n", "environment variables are not expanded"),
    ],
)
def test_anything_else_is_refused_with_its_line(tmp_path: Path, text: str, why: str):
    with pytest.raises(RequirementRefused) as err:
        read_requirements("# first\n" + text, SRC, tmp_path)
    message = str(err.value)
    assert message.startswith(f"{SRC}:2: ") and why.split(": ", 1)[-1] in message, message


def test_a_missing_wheel_is_named_by_its_line(tmp_path: Path):
    reqs = read_requirements("six==1.16.0\nOnly_Sdist==0.1\n", SRC, tmp_path)
    log = "ERROR: No matching distribution found for only-sdist==0.1\n"
    assert why_no_wheel(log, reqs, SRC) == (
        f"{SRC}:2: 'Only_Sdist==0.1' has no wheel pip can use here (a source distribution "
        "only, or no such release): re-runs install wheels only, so that no one's build code "
        "runs; pin a wheel: `name==version` of a release that publishes a wheel for this Python"
    )
    dependency = why_no_wheel("No matching distribution found for leftpad", reqs, SRC)
    assert dependency is not None and "'leftpad' (a dependency)" in dependency
    assert why_no_wheel("some other failure", reqs, SRC) is None


def test_wheels_for_an_image_python_are_named_by_its_tags():
    args = target_args("cpython 3.12 linux-x86_64\n")
    assert args[:10] == [
        "--implementation", "cp", "--python-version", "3.12",
        "--abi", "cp312", "--abi", "abi3", "--abi", "none",
    ]  # fmt: skip
    platforms = args[11::2]
    assert platforms[0] == "manylinux_2_40_x86_64" and platforms[-1] == "linux_x86_64"
    assert "manylinux2014_x86_64" in platforms
    for answer in ("pypy 3.10 linux-x86_64", "cpython 3.12 macosx-14-arm64", ""):
        with pytest.raises(RequirementRefused, match="CPython on glibc Linux"):
            target_args(answer)
