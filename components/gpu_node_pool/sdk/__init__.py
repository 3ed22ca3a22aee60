"""The only code that touches Pulumi's and CrossGuard's representations: the one record of a
registered resource (:mod:`.record`), safe readers of resource properties as a policy receives
them (:mod:`.props`), and the settings of the processes this package owns (:mod:`.process`).
"""
