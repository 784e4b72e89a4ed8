"""What the migrations compute, frozen: copies of helper code as the revisions shipped it.

A migration must give the same result for as long as it exists, whatever later code does with
run keys or the performance matrix; so a revision that computes something imports it from
here, never from the live modules of :mod:`metarec.storage`.  These modules are never imported
by the live code and are never edited once their revision has shipped: a change of the live
algorithm is a new revision with a new frozen copy.
"""
