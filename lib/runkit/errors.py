"""User errors: bad data, a bad config value, a bad checkpoint. At the command line each is one line.

`python -m project...` prints a UserError as `error: <what, where, the fix>` on stderr and exits with
its code (2 for input and usage errors), however deep it was raised: jsonargparse wraps the errors of
a class it instantiates in its own, and `user_error` finds ours in the chain of causes. Any other
exception is a bug and keeps its traceback. `PROJECT_TRACEBACK=1` shows the traceback of a user error too.
"""

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

TRACEBACK_VARIABLE = "PROJECT_TRACEBACK"


class UserError(Exception):
    """Something the user can fix; the message names the file, line or field, and the fix."""

    exit_code = 2


class DataError(UserError, ValueError):
    """A data file or data argument that cannot be used: a missing column, a malformed row, an unseen label."""


class MissingDataError(UserError, FileNotFoundError):
    """A file or folder the run needs is not there (nothing is downloaded: the message says where it goes)."""


class ConfigError(UserError, ValueError):
    """A config value that parses but cannot work (an unknown choice, an impossible combination)."""


class CheckpointError(UserError, RuntimeError):
    """A checkpoint that is cut short, not a checkpoint, or holds code: the message names the file."""


class TrainingProblem(UserError, RuntimeError):
    """A mistake that stops training: wrong target shape or range, NaN or inf. At the command line it is one
    `error:` line (exit status 1: the input parsed, the run failed)."""

    exit_code = 1


class TrainerSettingError(ConfigError):
    """A Trainer setting Lightning refused (`MisconfigurationException`): a GPU preset on a machine without one."""


def user_error(err: BaseException) -> UserError | None:
    """The UserError that caused `err` (itself, or one in its chain of causes), if any. Lightning's own
    refusal of a Trainer setting counts as one: it names the setting, and a traceback adds nothing."""
    from lightning.fabric.utilities.exceptions import MisconfigurationException

    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        if isinstance(current, UserError):
            return current
        if isinstance(current, MisconfigurationException):
            return TrainerSettingError(f"the Trainer refused its settings: {current}")
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


@contextmanager
def reported() -> Iterator[None]:
    """Turn a user error into `error: ...` on stderr and its exit code; let every other exception through."""
    try:
        yield
    except Exception as err:
        found = user_error(err)
        if found is None or os.environ.get(TRACEBACK_VARIABLE, "") not in ("", "0"):
            raise
        print(f"error: {found}\n(set {TRACEBACK_VARIABLE}=1 for the traceback)", file=sys.stderr)
        raise SystemExit(found.exit_code) from None
