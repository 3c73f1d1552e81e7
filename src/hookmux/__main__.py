import sys

from hookmux.cli import main

sys.exit(main())
