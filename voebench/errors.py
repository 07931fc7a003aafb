class UsageError(Exception):
    """Bad input from the user (flag, path, config key). The CLI prints it as one line and exits with 2,
    before anything is written."""
