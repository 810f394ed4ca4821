"""``make doctor``: check this machine's setup for the course and print each problem with its fix.

The checks live in course_utils/doctor.py (notebook 00 runs them too); this script runs them from the checkout with
any Python, loading that file by its path: no course_utils package, no numpy needed, so a broken environment can be
diagnosed. ``python tools/doctor.py`` (``py tools\\doctor.py`` on Windows); exit code 1 when something is wrong.

Only a terminal asks which ``python3`` kernel each JupyterLab starts (a notebook already runs on its kernel), so that
check lives here: :func:`diagnose_kernelspec`, given to ``main`` of course_utils/doctor.py.
"""
import os
import shutil
import sys
from pathlib import Path

from _checkout import doctor

core = doctor()  # course_utils/doctor.py, standard library only

# Run by a kernel's Python from a neutral folder: can it run the course's notebooks?
_KERNEL_PROBE = core._PROBE_HEAD + r"""
out["numpy"] = version("numpy")
try:
    spec = importlib.util.find_spec("course_utils")
    out["course_utils"] = spec.origin if spec else None
except Exception:
    out["course_utils"] = None
out["ipykernel"] = importlib.util.find_spec("ipykernel") is not None
print("DOCTOR-JSON" + json.dumps(out))
"""


def kernel_interpreter(argv, server: dict) -> str:
    """The interpreter a kernelspec's ``argv`` starts, as jupyter_client resolves it (``python``, ``python3``,
    ``python3.X`` of the server's version: the server's interpreter)."""
    command = argv[0] if argv else ""
    version = server.get("version") or [3]
    names = {"python", f"python{version[0]}", "python" + ".".join(str(v) for v in version[:2])}
    if command in names and server.get("executable"):
        return server["executable"]
    if os.path.isabs(command):
        return command
    return shutil.which(command) or command


def _kernel_fix(resource_dir, interpreter, server: dict, is_course_server: bool, env) -> str:
    if resource_dir and any(core._inside(resource_dir, p) for p in core._jupyter_path(server)):
        return core._stray_fix(resource_dir, server, "kernel", "hides the course's")
    own = (server.get("executable") and core._same_interpreter(interpreter, server["executable"])
           and (not resource_dir or core._inside(resource_dir, server.get("prefix", "/nonexistent"))
                or "ipykernel" in str(resource_dir)))
    if own and not is_course_server:
        return core._server_fix(False, env)
    if resource_dir:
        return (f"Another environment installed a kernel named python3 in {resource_dir} that hides the course's: "
                f"remove it with `rm -r '{resource_dir}'` (every environment's JupyterLab still offers its own "
                "Python 3 kernel)")
    return core._server_fix(is_course_server, env)


def diagnose_kernelspec(server: dict, label: str, env, course_numpy, is_course_server: bool, probe=None):
    """The ``python3`` kernel that this server starts for the notebooks is the course's Python (a Finding).

    `server` is what ``probe_server`` of course_utils/doctor.py found (``server["kernelspecs"]``: ``{name:
    {"resource_dir": ..., "spec": {"argv": [...]}}}``); `label` names the server's `jupyter` in the messages; `env`
    is the course's ``CourseEnv``; `course_numpy` is numpy's version in the course's environment; `is_course_server`
    is True for ``.venv/bin/jupyter``; `probe(interpreter, env)` (default: :data:`_KERNEL_PROBE` run there) returns
    ``numpy``, ``course_utils`` (its origin), ``ipykernel`` or ``error``.
    """
    name = f"kernel ({label})"
    specs = server.get("kernelspecs")
    if specs is None:
        return core._problem(name, f"cannot list its kernels ({server.get('kernelspec_error') or server.get('error')})",
                             core._server_fix(is_course_server, env))
    entry = specs.get("python3")
    if entry is None:
        return core._problem(name, "it has no python3 kernel (the notebooks ask for it; is ipykernel installed there?)",
                             core._server_fix(is_course_server, env))
    argv = (entry.get("spec") or {}).get("argv") or []
    resource_dir = entry.get("resource_dir")
    interpreter = kernel_interpreter(argv, server)
    if core._same_interpreter(interpreter, env.python):
        return core._ok(name, f"its python3 kernel runs {env.show(interpreter)}, the course's Python")
    found = (probe or _probe_kernel)(interpreter, env)
    reasons = []
    if "error" in found:
        reasons.append(found["error"])
    else:
        origin = found.get("course_utils")
        if not origin:
            reasons.append("cannot import course_utils")
        elif not core._inside(origin, env.repo / "course_utils"):
            reasons.append(f"imports course_utils from {Path(origin).parent}")
        if course_numpy and found.get("numpy") != course_numpy:
            numpy = f"numpy {found['numpy']}" if found.get("numpy") else "no numpy"
            reasons.append(f"has {numpy} (the course's: {course_numpy})")
        if not found.get("ipykernel"):
            reasons.append("has no ipykernel (the kernel dies at start)")
    if not reasons:
        return core._ok(name, f"its python3 kernel runs {interpreter}, which has the course's packages")
    where = f" (kernelspec: {resource_dir})" if resource_dir else ""
    which = reasons[0] if len(reasons) == 1 else ", ".join(reasons[:-1]) + " and " + reasons[-1]
    return core._problem(name, f"its python3 kernel runs {interpreter}, which {which}{where}",
                         _kernel_fix(resource_dir, interpreter, server, is_course_server, env))


def _probe_kernel(interpreter, env) -> dict:
    if not interpreter or (os.path.isabs(interpreter) and not os.path.exists(interpreter)):
        return {"error": "does not exist"}
    # From the notebooks' folder, as a kernel runs: the repository root would put course_utils on sys.path.
    cwd = env.repo / "notebooks"
    return core._run_probe(interpreter, _KERNEL_PROBE, cwd=str(cwd) if cwd.is_dir() else None)


def main(argv=None) -> int:
    """Every diagnosis of course_utils/doctor.py and this kernelspec check, then the fixes; 0 when all is fine."""
    return core.main(argv, kernels=diagnose_kernelspec)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
