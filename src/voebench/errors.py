class UsageError(Exception):
    """Bad input from the user (flag, path, config key). The CLI prints it as one line and exits with 2,
    before anything is written."""


class Infeasible(Exception):
    """A sampled trial that cannot be honoured under the run's settings (the event would fall outside the
    video, a hidden edit would be seen, two objects would start inside each other...). Raised by a scene's
    build; the generator then redraws the trial (attempt k+1, seeded from the trial's seed), and refuses the
    whole run up front when too few draws of a test can be honoured.

    `keys` names the parameters (dotted, as in `voebench params`) or settings (`seconds`, `fps`,
    `resolution`) that the condition depends on, so a refusal can say what to change."""

    def __init__(self, reason: str, keys: tuple[str, ...] | list[str] = ()):
        super().__init__(reason)
        self.reason = reason
        self.keys = tuple(keys)


class GeneratorBug(Exception):
    """Code that should not fail did (a scene raising something other than `Infeasible` for a draw). The CLI
    prints one line naming where the traceback was saved and exits 1."""

    def __init__(self, message: str, traceback_text: str):
        super().__init__(message)
        self.traceback_text = traceback_text
