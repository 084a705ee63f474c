"""make demo: the seed's LangChain snippet, catching the price mismatch from Python."""

from curbi_langchain import CurbiViolation, curbi_guard

policy = {"prices": [{"item": "Starter", "amount": 49}]}
guard = curbi_guard(policy=policy)
try:
    guard.invoke("Starter costs $99.")  # Raises on the price mismatch.
except CurbiViolation as e:
    for f in e.findings:
        print(f"  {f.rule:<20} {f.span}  {f.text!r:<8} {f.why}")
print("  passes unchanged:", repr(guard.invoke("Starter costs $49.")))
