"""Boot Debian's user-mode-linux with the host filesystem as root and run a payload.

The host kernel of the CI machine has no netem, so the kernel tests and the benchmark run
inside ``linux.uml`` (package ``user-mode-linux``): the init script mounts /proc, /sys and
a tmpfs /run, loads the modules from ``/usr/lib/uml/modules/<release>/kernel`` with
``insmod`` (package ``kmod``), runs the payload with this virtualenv's Python and powers
off. Results come back through files in ``out_dir`` (on the host filesystem).

On a host whose XSAVE area holds more than x87/SSE/AVX (AVX-512, protection keys, AMX),
UML 6.1 cannot restore the FPU state of its processes (the host kernel refuses a
``PTRACE_SETREGSET`` of UML's fixed 832 bytes), and its init dies at the first context
switch. :func:`find_uml` then builds ``uml_xstate_shim.c`` with gcc and
:func:`run_in_uml` preloads it into ``linux.uml``: it turns those calls into full-size ones
and keeps the rest of each thread's area (see the C file).
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

UML_BINARY = "/usr/bin/linux.uml"
MODULE_ROOT = "/usr/lib/uml/modules"
# (module path under kernel/, insmod arguments). Order matters only for dependencies,
# and none of these depend on each other in Debian's UML build.
MODULES: list[tuple[str, str]] = [
    ("net/sched/sch_netem", ""),
    ("drivers/net/veth", ""),
    ("drivers/net/ifb", "numifbs=0"),
    ("net/sched/sch_prio", ""),
    ("net/sched/sch_ingress", ""),
    ("net/sched/cls_u32", ""),
    ("net/sched/cls_matchall", ""),
    ("net/sched/act_mirred", ""),
]
PACKAGES = {
    "linux.uml": "user-mode-linux",
    "modules": "user-mode-linux",
    "insmod": "kmod",
    "ip": "iproute2",
    "tc": "iproute2",
    "gcc": "gcc",
}
SHIM_SOURCE = Path(__file__).with_name("uml_xstate_shim.c")
#: CPU flags of XSAVE components beyond x87/SSE/AVX, the part UML 6.1 saves: with any of
#: them in use the host's full XSAVE area is larger than UML's buffer
LARGE_XSAVE_FLAGS = ("avx512f", "ospke", "amx_tile")


class Missing(RuntimeError):
    """A prerequisite of the user-mode kernel tests is missing (names the package)."""


@dataclass
class UmlEnv:
    binary: str
    release: str
    module_dir: str
    xstate_shim: str | None = None  # the shim to preload into linux.uml, if the host needs it


def needs_xstate_shim(cpuinfo: str | None = None) -> bool:
    """True if the CPU flags (``/proc/cpuinfo``) name an XSAVE component UML 6.1 does not
    save (:data:`LARGE_XSAVE_FLAGS`)."""
    text = Path("/proc/cpuinfo").read_text() if cpuinfo is None else cpuinfo
    for line in text.splitlines():
        if line.startswith("flags"):
            flags = set(line.partition(":")[2].split())
            return any(flag in flags for flag in LARGE_XSAVE_FLAGS)
    return False


def _private_directory(directory: Path | None) -> Path:
    """``directory``, or this user's ``netem-agent-<uid>`` in the temporary directory, made
    0700 if new. A directory that is not this user's own, or that others can write to, is
    refused: a library found there would be preloaded into linux.uml."""
    if directory is None:
        directory = Path(tempfile.gettempdir()) / f"netem-agent-{os.getuid()}"
        directory.mkdir(mode=0o700, exist_ok=True)
    _check_private(directory)
    return directory


def _check_private(path: Path) -> None:
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise RuntimeError(
            f"{path} is not a private file of this user (owner uid {info.st_uid}, mode "
            f"{stat.S_IMODE(info.st_mode):o}): refusing to preload a library from it"
        )


def build_xstate_shim(directory: Path | None = None) -> str:
    """The compiled ``uml_xstate_shim.c`` (built with gcc once per version of the source,
    in this user's private directory under the temporary directory unless ``directory`` is
    given; the file appears atomically). A library is reused only if this user owns it and
    nobody else can write it (:func:`_check_private`)."""
    source = SHIM_SOURCE.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    target = _private_directory(directory) / f"netem-agent-uml-xstate-{digest}.so"
    if target.exists():
        _check_private(target)
        return str(target)
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise Missing(
            "this CPU's XSAVE area is larger than user-mode-linux 6.1 handles, and the shim "
            f"for it needs a C compiler: install the Debian package '{PACKAGES['gcc']}'"
        )
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    flags = ["-shared", "-fPIC", "-O2", "-Wall", "-o", str(partial)]
    built = subprocess.run(
        [compiler, *flags, str(SHIM_SOURCE), "-ldl"],
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        partial.unlink(missing_ok=True)
        raise RuntimeError(f"building {SHIM_SOURCE.name} failed:\n{built.stderr}")
    partial.chmod(0o755)
    os.replace(partial, target)
    return str(target)


def find_uml() -> UmlEnv:
    """Locate linux.uml and its modules, or raise Missing naming the Debian package."""
    binary = shutil.which("linux.uml") or (UML_BINARY if os.path.exists(UML_BINARY) else None)
    if binary is None:
        raise Missing("linux.uml not found: install the Debian package 'user-mode-linux'")
    releases = sorted(glob.glob(f"{MODULE_ROOT}/*/kernel"))
    if not releases:
        raise Missing(
            f"no UML modules under {MODULE_ROOT}: install the Debian package 'user-mode-linux'"
        )
    kdir = releases[-1]
    missing = [m for m, _ in MODULES if not os.path.exists(f"{kdir}/{m}.ko")]
    if missing:
        raise Missing(
            f"UML kernel modules missing in {kdir}: {missing} (Debian package 'user-mode-linux')"
        )
    for tool in ("insmod", "ip", "tc"):
        if (
            shutil.which(tool) is None
            and not os.path.exists(f"/usr/sbin/{tool}")
            and not os.path.exists(f"/sbin/{tool}")
        ):
            raise Missing(f"'{tool}' not found: install the Debian package '{PACKAGES[tool]}'")
    shim = build_xstate_shim() if needs_xstate_shim() else None
    return UmlEnv(binary, Path(kdir).parent.name, kdir, shim)


INIT_TEMPLATE = """#!/bin/sh
# init of the user-mode kernel (generated by netem_agent.testing.uml)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
{pythonpath}OUT={out}
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/netns
ip link set lo up
{insmods}
echo booted > $OUT/booted
cd {cwd}
{payload} > $OUT/payload.log 2>&1
echo $? > $OUT/exit_code
sync
echo o > /proc/sysrq-trigger
sleep 5
poweroff -f
"""


#: A user-mode kernel is a set of host processes: on a busy host its timers (netem's
#: among them) fire when the host scheduler runs it, which adds the host's wake-up latency
#: to every delayed packet. A real emulator box has its CPU to itself; a higher priority
#: (a larger CFS weight and wake-up preemption) brings the test rig closer to that.
UML_NICE = -10


def _lower_niceness(nice: int) -> None:
    """In the forked child before exec: take niceness ``nice`` if permitted (else keep)."""
    with contextlib.suppress(PermissionError):
        os.setpriority(os.PRIO_PROCESS, 0, nice)


def _pythonpath_export() -> str:
    """The host's PYTHONPATH for the payload: the init starts from a clean environment, and
    without it the guest would import the venv's (editable) copy instead of the checkout
    under test (e.g. a git worktree run with ``PYTHONPATH=$PWD/src``)."""
    value = os.environ.get("PYTHONPATH")
    return f"export PYTHONPATH={shlex.quote(value)}\n" if value else ""


@dataclass
class UmlResult:
    exit_code: int | None  # payload's exit code; None if it never finished
    booted: bool
    timed_out: bool
    seconds: float
    console: str
    payload_log: str


def run_in_uml(
    payload: list[str],
    out_dir: Path,
    *,
    timeout: float = 600,
    mem: str = "512M",
    env: UmlEnv | None = None,
    nice: int = UML_NICE,
) -> UmlResult:
    """Boot UML, run ``payload`` (argv) as root inside it, return when it powered off.

    The user-mode kernel and every host process it forks run at niceness ``nice`` when the
    caller may raise priority (root), else at the caller's own (see :data:`UML_NICE`)."""
    env = env or find_uml()
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in ("booted", "exit_code", "payload.log"):
        (out_dir / name).unlink(missing_ok=True)
    insmods = "\n".join(
        f"insmod {env.module_dir}/{m}.ko {args} || echo 'insmod {m} failed' >> $OUT/insmod.err"
        for m, args in MODULES
    )
    init = out_dir / "init.sh"
    init.write_text(
        INIT_TEMPLATE.format(
            out=shlex.quote(str(out_dir)),
            insmods=insmods,
            cwd=shlex.quote(os.getcwd()),
            payload=" ".join(shlex.quote(a) for a in payload),
            pythonpath=_pythonpath_export(),
        )
    )
    init.chmod(0o755)
    cmd = [
        env.binary,
        f"mem={mem}",
        "rootfstype=hostfs",
        "rw",
        f"init={init}",
        "con0=null,fd:1",
        "con=null",
        "quiet",
    ]
    host_env = dict(os.environ)
    if env.xstate_shim is not None:
        host_env["LD_PRELOAD"] = env.xstate_shim
    start = time.monotonic()
    timed_out = False
    with open(out_dir / "console.log", "wb") as console:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=console,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=lambda: _lower_niceness(nice),
            env=host_env,
        )
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, 9)  # UML runs as a process group of its own
            proc.wait()
    seconds = time.monotonic() - start
    code_file = out_dir / "exit_code"
    exit_code = int(code_file.read_text().strip()) if code_file.exists() else None
    log = out_dir / "payload.log"
    return UmlResult(
        exit_code=exit_code,
        booted=(out_dir / "booted").exists(),
        timed_out=timed_out,
        seconds=seconds,
        console=(out_dir / "console.log").read_text(errors="replace"),
        payload_log=log.read_text(errors="replace") if log.exists() else "",
    )


def python() -> str:
    """The interpreter to run inside UML (this virtualenv's, on the shared filesystem)."""
    return sys.executable
