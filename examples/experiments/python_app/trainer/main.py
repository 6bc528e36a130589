"""A stand-in trainer: prints its job name and arguments."""
import os
import sys

print(os.environ.get("SORTIE_JOB_NAME", "?"), " ".join(sys.argv[1:]))
