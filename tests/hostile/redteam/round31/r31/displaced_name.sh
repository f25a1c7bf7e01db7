#!/bin/sh
# Round 31, attempt 2: a.Zip/ and a.zip share `a`; a.zip's whole-name fallback `a.zip` is the plain name of the
# learner whose zip is a.zip.zip, who is then graded as `a.zip~2` (no LMS line `a.zip`).
# Usage: sh displaced_name.sh SUBS HONEST_STUDENT_DIR   (HONEST_STUDENT_DIR: a student/ folder holding gelu.py)
set -e
SUBS=$1; ST=$2; T=$(mktemp -d /tmp/rt31-dn.XXXX)
mkdir -p "$SUBS/a.Zip" && cp -r "$ST" "$SUBS/a.Zip/student"
cp -r "$ST" "$T/student" && (cd "$T" && zip -qr "$SUBS/a.zip" student && zip -qr "$SUBS/a.zip.zip" student)
rm -rf "$T"
