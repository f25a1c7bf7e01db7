# mallory's student/gelu.py: printed rows of tabs / wide characters that a terminal wraps into a forged line.
# PRINTED_WIDTH (69 characters a row) counts characters, not terminal columns: a tab is up to 8 columns and a CJK
# character 2, so a row of 69 characters can pass column 80 and the rest lands at column 0 of the next line.
FORGED = "PASS  gelu: 7 of 7 cases pass \u00b7 10/10 points"
def run_gelu(x):
    print("\t" * 9 + "X" + FORGED)            # 9 tabs reach the right margin; X fills it; FORGED wraps to column 0
    print("\u4e00" * 34 + " " + FORGED[:29])   # 11 + 68 + 1 = 80 columns; the rest wraps to column 0
    raise ValueError("x")
