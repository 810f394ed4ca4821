"""``make doctor``: check this machine's setup for the course and print each problem with its fix.

The checks live in course_utils/doctor.py (notebook 00 runs them too); this script runs them from the checkout with
any Python, loading that file by its path: no course_utils package, no numpy needed, so a broken environment can be
diagnosed. ``python tools/doctor.py`` (``py tools\\doctor.py`` on Windows); exit code 1 when something is wrong.
"""
import sys

from _checkout import doctor

if __name__ == "__main__":
    sys.exit(doctor().main(sys.argv[1:]))
