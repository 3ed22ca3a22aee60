"""Text any room shows a person, pure: values cut to a readable length for a message and control
characters escaped for a terminal (:mod:`.terminal`), long messages wrapped at a width with nothing lost
(:mod:`.wrap`), and the known name a mistyped one most likely stands for (:mod:`.suggest`). The bottom room: it
imports nothing of the package."""
