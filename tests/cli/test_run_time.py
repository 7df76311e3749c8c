"""The default suite takes under a minute on a machine with its cores to itself. Its verdict
depends on the load, so ctest labels it perf: scripts/device-check.sh runs it, the default test
run does not (test_run.py checks what the suite produces on any host)."""
import time

from gpubench_cli import CliTestCase, gpubench, main


class RunTimeTests(CliTestCase):
    def test_default_suite_under_a_minute(self):
        start = time.monotonic()
        process = gpubench("run", timeout=120)
        elapsed = time.monotonic() - start
        self.assertOk(process)
        self.assertLess(elapsed, 60, f"default suite took {elapsed:.1f} s")


if __name__ == "__main__":
    main()
