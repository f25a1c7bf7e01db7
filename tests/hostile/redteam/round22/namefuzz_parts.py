"""Shared name parts for the intake fuzzers."""
DECL = ["student/gelu.py", "student/conv1d.py", "student/mlp.py", "student/kvcache.py"]
PARTS = ["student", "Student", "STUDENT", "st\u00fcdent", "gelu.py", "GELU.PY", "Gelu.Py", "gelu.pyc", "gelu.py ",
         "\u212avcache.py", "kvcache.py", "__init__.py", "__main__.py", "_x.py", "x.py", ".py", "..py", "a.b.py",
         "pkg", "_pkg", "1pkg", "p-k", "__pycache__", ".git", "__MACOSX", "venv", "node_modules", "\u00e9.py",
         "e\u0301.py", "\u0130.py", "\u0131.py", "\ufb01.py", "a" * 200 + ".py", "x" * 250, "con.py", "gelu",
         "\u200bgelu.py", "gelu.py\u200b", "\\", "a\\b.py", "student\\gelu.py", " ", "~", "$", "%", "\ud7ff.py",
         "conv1d.py", "mlp.py", "mlp", "conv1d", "gelu.PY", "setup.py", "requirements.txt", "README.md"]
