"""Stands in for a cifar10 trainer: prints the hyperparameters it was given."""

import sys

print('training with', ' '.join(sys.argv[1:]))
