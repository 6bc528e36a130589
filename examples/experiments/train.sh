#!/bin/sh
# A stand-in trainer: says which job it is and what it was asked.
echo "$SORTIE_JOB_NAME $*"
