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


@pytest.mark.parametrize("rows, min_rows, cores", [(10, 1, 2), (7, 1, 4), (3, 2, 2), (1, 1, 8), (100, 30, 8)])
def test_split_rows_covers_every_row_once_in_at_most_one_share_per_core(monkeypatch, rows, min_rows, cores):
    monkeypatch.setattr(_blas, "_cores", lambda: cores)
    seen, shares = [], []

    def work(start, stop):
        shares.append((start, stop))
        seen.extend(range(start, stop))

    _blas.split_rows(work, rows, min_rows=min_rows)
    assert sorted(seen) == list(range(rows))
    assert 1 <= len(shares) <= min(cores, max(1, rows // min_rows))
    assert all(stop - start >= min(min_rows, rows) for start, stop in shares)


def test_split_rows_raises_a_shares_error_after_every_share_finished(monkeypatch):
    monkeypatch.setattr(_blas, "_cores", lambda: 2)
    done = []

    def work(start, stop):
        if start > 0:
            raise ValueError("the second share failed")
        done.append((start, stop))

    with pytest.raises(ValueError, match="the second share failed"):
        _blas.split_rows(work, 10)
    assert done == [(0, 5)]


@needs_openblas
def test_one_blas_thread_inside_and_the_former_number_after(restore_threads):
    _blas.set_blas_threads(2)
    with _blas.one_blas_thread():
        assert _blas.blas_threads() == 1
        with _blas.one_blas_thread():  # nested: still one, and the outer block restores
            assert _blas.blas_threads() == 1
        assert _blas.blas_threads() == 1
    assert _blas.blas_threads() == 2
