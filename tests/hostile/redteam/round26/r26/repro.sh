#!/bin/sh
# Round 26: reproduce findings 1, 4 and 12 (as root, jailed, --jobs 1). Scratch in /tmp/rt26-repro.
set -e
R=/work/redteam26; W=/tmp/rt26-repro; cd $R && . .venv/bin/activate
rm -rf $W; mkdir -p $W/w/honest/student $W/w/bad/student $W/f1 $W/f4 $W/f12/alice/student $W/f12/mallory/student
cp attacks/base/gelu.py $W/w/honest/student/; printf 'def run_gelu(x):\n    return x*0\n' > $W/w/bad/student/gelu.py
# 1: a/ takes the LMS name of learner a~1.zip
(cd $W/w/honest && zip -qr $W/f1/a~1.zip student); (cd $W/w/bad && zip -qr $W/f1/a~1.ZIP student && zip -qr $W/f1/a.zip student)
cp -r $W/w/bad $W/f1/a
python -m grader --root $R batch $W/f1 --jobs 1 --stage gelu --db $W/f1.sqlite --lms $W/f1.csv --quiet >/dev/null
echo "== 1: lms (a~1 is learner a~1.zip's LMS name; it carries the folder a/'s score)"; cat $W/f1.csv
# 4: forged lines in report
cp -r $W/w/honest $W/f4/alice
python attacks/wrapforge/make_report.py $W/f4/mallory.zip mallory
python -m grader --root $R batch $W/f4 --jobs 1 --stage gelu --db $W/f4.sqlite --quiet >/dev/null
python -m grader --root $R report --db $W/f4.sqlite > $W/f4.txt
echo "== 4: report as an 80-column terminal shows it"; python attacks/wrapforge/term80.py $W/f4.txt | tail -8
# 12: key flood
cp attacks/base/gelu.py $W/f12/alice/student/; cp attacks/keyflood/gelu.py $W/f12/mallory/student/
/usr/bin/time -v python -m grader --root $R batch $W/f12 --jobs 1 --stage gelu --db $W/f12.sqlite --feedback $W/fb12 \
    --quiet 2> $W/time12.txt >/dev/null
echo "== 12: peak RSS, gradebook, feedback sizes (gelu only, 7 public cases)"
grep "Maximum resident" $W/time12.txt; ls -l $W/f12.sqlite $W/fb12
rm -f $W/fb12/mallory.txt
