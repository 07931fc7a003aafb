import sys

from voebench.cli import main

sys.exit(main())
