"""Shared assertions for the checker tests (tests/test_checks_nb*.py).

Each checker is tested against the reference, the stub the build tool leaves, and the wrong
answers learners really write ("mutants"); these helpers say what "reported wrong, with the
right hint" means, once.
"""


def stub(*args):
    """What a learner's exercise looks like before they start (the build tool's stub)."""
    # YOUR CODE HERE
    raise NotImplementedError()


def assert_wrong(result, case_number, hint_word, *, check_passed=True):
    """The checker said "wrong", at the smallest failing case, with a hint containing hint_word."""
    assert result.status == "wrong", result.text
    assert not result
    assert result.message.startswith("Not yet right")
    assert result.case.startswith(f"case {case_number} of "), result.text
    if check_passed:
        assert result.passed == case_number - 1, result.text
    assert hint_word in result.hint, result.text
    assert "Traceback" not in result.text


def check_mutant(check, mistakes, mutant, case_number, mistake_name, hint_word, *,
                 exact_hint=False, check_passed=True):
    """Run `check` on a wrong answer; assert it is reported wrong with the right known-mistake hint.

    mistake_name None means no known mistake may be named (a generic hint is expected).
    With exact_hint the hint must be the known mistake's hint itself; otherwise it must start
    with it (some checkers append details). Known mistakes whose hint is not a plain string
    (computed per case) are checked through hint_word only.
    """
    result = check(mutant)
    assert_wrong(result, case_number, hint_word, check_passed=check_passed)
    specific = {m.name: m.hint for m in mistakes if isinstance(m.hint, str)}
    if mistake_name is None:
        assert not any(result.hint.startswith(h) for h in specific.values()), result.text
    elif mistake_name in specific:
        if exact_hint:
            assert result.hint == specific[mistake_name], result.text
        else:
            assert result.hint.startswith(specific[mistake_name]), result.text
    return result
