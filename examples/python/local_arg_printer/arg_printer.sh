#!/bin/sh
# Appends the arguments it was given, one run per line, to the file named by $OUTPUT_FILE.
echo "$*" >> "$OUTPUT_FILE"
