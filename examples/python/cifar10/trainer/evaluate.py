"""Stands in for a cifar10 evaluator: prints the arguments it was given."""

import sys

print('evaluating with', ' '.join(sys.argv[1:]))
