"""A step that meets a full disk, a denied permission or a read-only file system fails with one sentence
(core.os_errors), not a stack trace: the message the run's page and `vak run` show."""

from __future__ import annotations

import errno
import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import dagster as dg

from vak_pipeline.core.os_errors import describe_os_error, is_environment_error

F = TypeVar("F", bound=Callable[..., Any])


def os_errors_as_sentences(fn: F) -> F:
    """Under @dg.asset: an environment OSError raised by the step becomes a dg.Failure whose description is
    the sentence (path and fix); metadata holds the path and the error code. Other errors pass unchanged."""

    def failure(exc: OSError) -> dg.Failure:
        return dg.Failure(description=describe_os_error(exc, f"running {fn.__name__}"),
                          metadata={"path": str(exc.filename or ""),
                                    "error": errno.errorcode.get(exc.errno or 0, str(exc.errno))},
                          allow_retries=False)

    if inspect.isgeneratorfunction(fn):  # an asset that yields (release): the errors come while it is iterated
        @functools.wraps(fn)
        def steps(*args: Any, **kwargs: Any) -> Any:
            try:
                yield from fn(*args, **kwargs)
            except OSError as exc:
                if not is_environment_error(exc):
                    raise
                raise failure(exc) from None

        return steps  # type: ignore[return-value]

    @functools.wraps(fn)
    def step(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except OSError as exc:
            if not is_environment_error(exc):
                raise
            raise failure(exc) from None

    return step  # type: ignore[return-value]
