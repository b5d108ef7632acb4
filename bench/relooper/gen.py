#!/usr/bin/env python3
"""bench/relooper/gen.py — writes the random control-flow graphs both
relooper drivers structure, as JSON: {"families": [{"name", "graphs": [g]}]}
where a graph g is a list of blocks [kind, [succ...]]: kind 0 is a plain
block whose branches but the last are conditional (on a call to next()) and
whose last branch is unconditional (no succs: it returns); kind 1 is a switch
block on next() whose i-th succ takes case i and whose last succ is the
default. Entry is block 0. Deterministic for a seed.
"""
import json
import random
import sys


class Builder:
    def __init__(self, rng, switch_rate=0.0):
        self.rng, self.blocks, self.switch_rate = rng, [], switch_rate

    def new(self):
        self.blocks.append([0, []])
        return len(self.blocks) - 1

    def stmt(self, cur, depth, budget, loops):
        """Emits a random structured statement starting in block cur; returns
        the block where control continues (None if it left)."""
        r = self.rng.random()
        if depth <= 0 or budget[0] <= 0 or r < 0.25:
            budget[0] -= 1
            if loops and self.rng.random() < 0.15:      # break / continue
                head, exit_ = self.rng.choice(loops)
                tgt = exit_ if self.rng.random() < 0.5 else head
                nxt = self.new()
                self.blocks[cur][1] += [tgt, nxt]         # if (c) break/continue
                return nxt
            nxt = self.new()
            self.blocks[cur][1].append(nxt)
            return nxt
        if r < 0.5:                                       # if / else (diamond)
            t, e, j = self.new(), self.new(), self.new()
            self.blocks[cur][1] += [t, e]
            for arm in (t, e):
                end = self.seq(arm, depth - 1, budget, loops)
                if end is not None:
                    self.blocks[end][1].append(j)
            return j
        if r < 0.5 + self.switch_rate:                    # switch with fallthrough
            n = self.rng.randint(3, 12)
            cases = [self.new() for _ in range(n)]
            j = self.new()
            self.blocks[cur][0] = 1
            self.blocks[cur][1] += cases + [j if self.rng.random() < 0.5 else cases[-1]]
            for i, c in enumerate(cases):
                end = self.seq(c, depth - 1, budget, loops + [(c, j)])
                if end is not None:
                    ft = i + 1 < n and self.rng.random() < 0.3
                    self.blocks[end][1].append(cases[i + 1] if ft else j)
            return j
        head, exit_ = self.new(), self.new()              # while loop
        self.blocks[cur][1].append(head)
        body = self.new()
        self.blocks[head][1] += [exit_, body]
        end = self.seq(body, depth - 1, budget, loops + [(head, exit_)])
        if end is not None:
            self.blocks[end][1].append(head)
        return exit_

    def seq(self, cur, depth, budget, loops):
        for _ in range(self.rng.randint(1, 4)):
            cur = self.stmt(cur, depth, budget, loops)
            if cur is None:
                return None
        return cur


def structured(rng, size, switch_rate=0.0, depth=8):
    b = Builder(rng, switch_rate)
    cur = b.new()
    budget = [size]
    while budget[0] > 0:
        cur = b.stmt(cur, depth, budget, [])
    return fix(b.blocks)


def fix(blocks):
    """One branch per target (Binaryen's Relooper asserts it): plain blocks
    keep the last branch to a target; switch blocks become [[target,
    [case...]], ..., [default, []]], cases to the default target dropped."""
    for blk in blocks:
        if blk[0] == 1 and len(blk[1]) < 2:
            blk[0] = 0
        succ = blk[1]
        if blk[0] == 0:
            seen, out = set(), []
            for t in reversed(succ):
                if t not in seen:
                    seen.add(t)
                    out.append(t)
            blk[1] = out[::-1]
        else:
            dflt, cases = succ[-1], {}
            for i, t in enumerate(succ[:-1]):
                if t != dflt:
                    cases.setdefault(t, []).append(i)
            blk[1] = [[t, c] for t, c in cases.items()] + [[dflt, []]]
    return blocks


def diamonds(rng, n):
    blocks = []
    for i in range(n):
        base = len(blocks)
        blocks += [[0, [base + 1, base + 2]], [0, [base + 3]], [0, [base + 3]]]
    blocks.append([0, []])
    return blocks


def irreducible(rng, n, entries=3):
    """Random graphs: loops entered at several blocks, plus forward edges."""
    blocks = [[0, []] for _ in range(n)]
    for i in range(n - 1):
        succ = [i + 1]
        for _ in range(rng.randint(0, 2)):
            j = rng.randrange(n)
            if j != i:
                succ.insert(0, j)
        if rng.random() < 0.1:
            blocks[i][0] = 1
            succ = [rng.randrange(n) for _ in range(rng.randint(2, 6))] + succ
        blocks[i][1] = succ
    # extra entries into the middle of back-edge regions
    for _ in range(entries):
        a, b = sorted(rng.sample(range(1, n - 1), 2))
        blocks[0][1].insert(0, b)
        blocks[b][1].insert(0, a)
    return fix(blocks)


def main():
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(seed)
    fam = []
    fam.append({"name": "reducible", "graphs": [structured(rng, rng.randint(20, 400)) for _ in range(40)]})
    fam.append({"name": "diamonds", "graphs": [diamonds(rng, rng.randint(5, 200)) for _ in range(20)]})
    fam.append({"name": "switch-heavy", "graphs": [structured(rng, rng.randint(20, 400), 0.35) for _ in range(40)]})
    fam.append({"name": "irreducible", "graphs": [irreducible(rng, rng.randint(10, 200), rng.randint(1, 4))
                                                  for _ in range(40)]})
    fam.append({"name": "large-reducible", "graphs": [structured(rng, 40000, 0.1, 14) for _ in range(2)]})
    fam.append({"name": "large-irreducible", "graphs": [irreducible(rng, 10000, 8)]})
    with open(sys.argv[1], "w") as f:
        json.dump({"seed": seed, "families": fam}, f, separators=(",", ":"))
    # the same graphs as text for the C driver: "F name n", "G nblocks", "kind nsucc succ..."
    with open(sys.argv[1] + ".txt", "w") as f:
        for fm in fam:
            f.write("F %s %d\n" % (fm["name"], len(fm["graphs"])))
            for g in fm["graphs"]:
                f.write("G %d\n" % len(g))
                for kind, succ in g:
                    if kind:
                        succ = ["%d %d %s" % (t, len(c), " ".join(map(str, c))) for t, c in succ]
                    f.write("%d %d %s\n" % (kind, len(succ), " ".join(map(str, succ))))
    for fm in fam:
        print("%-18s %3d graphs, %7d blocks" % (fm["name"], len(fm["graphs"]), sum(len(g) for g in fm["graphs"])))


if __name__ == "__main__":
    main()
