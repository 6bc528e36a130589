#!/bin/sh
# Writes this job's arguments to $OUTPUT_DIR/<experiment>_<work unit>_<job>.txt.
echo "$*" >"$OUTPUT_DIR/$SORTIE_JOB_NAME.txt"
