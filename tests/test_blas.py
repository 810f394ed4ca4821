"""course_utils._blas: one OpenBLAS thread inside a Jupyter kernel, unless the user chose (issue 14)."""
import pytest

from course_utils import _blas

needs_openblas = pytest.mark.skipif(_blas.blas_threads() is None, reason="numpy does not use OpenBLAS here")


@pytest.fixture
def restore_threads():
    before = _blas.blas_threads()
    yield
    if before is not None:
        _blas.set_blas_threads(before)


def test_outside_a_kernel_nothing_changes():
    assert not _blas._in_kernel()
    assert _blas.limit_in_kernel({}) is None


@needs_openblas
def test_in_a_kernel_one_thread_by_default(monkeypatch, restore_threads):
    monkeypatch.setattr(_blas, "_in_kernel", lambda: True)
    _blas.set_blas_threads(2)
    assert _blas.limit_in_kernel({}) == 1
    assert _blas.blas_threads() == 1
    assert _blas.limit_in_kernel({"COURSE_BLAS_THREADS": "2"}) == 2
    assert _blas.blas_threads() == 2


@pytest.mark.parametrize("name", _blas.USER_SETTINGS)
def test_a_users_own_setting_stands(monkeypatch, restore_threads, name):
    monkeypatch.setattr(_blas, "_in_kernel", lambda: True)
    before = _blas.blas_threads()
    assert _blas.limit_in_kernel({name: "2"}) is None
    assert _blas.blas_threads() == before


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_a_bad_course_setting_changes_nothing(monkeypatch, restore_threads, value):
    monkeypatch.setattr(_blas, "_in_kernel", lambda: True)
    before = _blas.blas_threads()
    assert _blas.limit_in_kernel({"COURSE_BLAS_THREADS": value}) is None
    assert _blas.blas_threads() == before


def test_an_empty_course_setting_is_the_default(monkeypatch, restore_threads):
    monkeypatch.setattr(_blas, "_in_kernel", lambda: True)
    assert _blas.limit_in_kernel({"COURSE_BLAS_THREADS": ""}) == 1


def test_zero_threads_is_refused():
    with pytest.raises(ValueError, match="at least 1"):
        _blas.set_blas_threads(0)
