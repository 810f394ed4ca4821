"""The lock a Python gets is chosen in two files: course.py (standard library, runs before any environment exists)
and course_utils.doctor (which checks the environment, also where course.py is absent). They must agree."""
import importlib.util
from pathlib import Path

import pytest

from course_utils import doctor

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("course_launcher", ROOT / "course.py")
course = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(course)


@pytest.mark.parametrize("version", [(3, 10, 0), (3, 10, 14), (3, 11, 0), (3, 11, 7), (3, 12, 3), (3, 13, 0)])
def test_course_py_and_the_doctor_choose_the_same_lock(version):
    assert course.lock_name(version) == doctor.lock_name(version)
    assert course.lock_name(version) == ("requirements-py310.lock" if version[:2] == (3, 10) else "requirements.lock")
