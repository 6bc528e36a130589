#!/bin/sh
# A stand-in trainer: says who it is and what it was asked.
echo "$SORTIE_JOB_NAME $*"
