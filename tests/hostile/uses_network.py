"""Send the input to a server (to fetch an answer, or to leak data) and use what comes back."""
import socket


def run_double(x):
    try:
        with socket.create_connection(("127.0.0.1", @@PORT@@), timeout=2) as s:
            s.sendall(x.tobytes())
            return 2 * x
    except OSError as e:
        print("blocked:", e)
    return x * 0
