//! The reference graph of one map, the personalized PageRank over it, and the choice of each
//! file's definitions (which weighs names by the graph's per-name counts).
//!
//! Kept apart from [`super`], which states the ranking's rules (weights, steering, result)
//! and orders the files: this is the arithmetic, laid out so that a name with many definers
//! costs one step rather than a fan-out, and so that the same tree always ranks to the same
//! bits.

use std::collections::HashMap;

use super::{
    DAMPING, DEFINITIONS_PER_FILE, GENERIC_DEFINERS, GENERIC_WEIGHT, INCIDENTAL_ALONE,
    MAX_ITERATIONS, MapFile, SET_ASIDE_MIN_FILES, Shown, TOLERANCE, generic_name,
};
use crate::fs::map::Place;
use crate::fs::map::symbols::{DefinitionLine, Interner, NameId, Symbols};

/// The reference graph of one map, with names as intermediate nodes.
///
/// An edge A→B for every name A refers to and B defines would fan a name with hundreds of
/// definers (`new`, `fmt`) out to every one of them from every file using it: a million edges
/// on a few thousand files. Routing the same weights through one node per name costs one step
/// per (file, name) pair instead, and gives the same walk: a name passes on what its referrers
/// send it, split evenly among its definers, less what a definer sent itself.
pub(super) struct Graph {
    /// Files in the map.
    files: usize,
    /// Global name id → dense local id of a name some file here defines (`u32::MAX`: none).
    local: Vec<u32>,
    /// Per local name: how many files define it.
    definers: Vec<u32>,
    /// Per local name: references to it from all files.
    totals: Vec<u64>,
    /// Per local name: files referring to it.
    referrers: Vec<u32>,
    /// Per file, the range of its entries in `receiving`.
    receiving_at: Vec<usize>,
    /// Local names each file defines that some other file refers to.
    receiving: Vec<u32>,
    /// Per file, the range of its entries in `links`.
    links_at: Vec<usize>,
    /// What each file sends each name it refers to: its share of the file's damped rank, and
    /// whether the file defines the name itself (and so must not receive its own share).
    links: Vec<Link>,
    /// Import edges (Raku `use`): from, to, share of the damped rank.
    imports: Vec<(usize, usize, f64)>,
    /// Files with no outgoing edge (their rank teleports).
    dangling: Vec<usize>,
}

/// One (file, name) reference in the graph.
#[derive(Debug, Clone, Copy)]
struct Link {
    name: u32,
    share: f64,
    defines: bool,
}

impl Graph {
    /// The graph of `files`. Every sum is taken in an order given by the files' contents
    /// alone (local names are numbered by first definition, in file order), never by the
    /// interner's ids, which depend on what earlier maps parsed first: the same tree always
    /// ranks to the same bits.
    pub(super) fn new(files: &[MapFile<'_>], names: &Interner) -> Graph {
        let n = files.len();
        let mut local = vec![u32::MAX; names.len()];
        let mut definers: Vec<u32> = Vec::new();
        // Per local name: whether it is too generic to say much (see `generic_name`).
        let mut generic: Vec<bool> = Vec::new();
        // The last file counted as a definer of each local name.
        let mut counted: Vec<usize> = Vec::new();
        let mut defined_at = Vec::with_capacity(n + 1);
        let mut defined = Vec::new();
        defined_at.push(0);
        for (b, file) in files.iter().enumerate() {
            // Only items can be referred to from another file.
            for d in file
                .symbols
                .definitions
                .iter()
                .filter(|d| d.place == Place::Item)
            {
                let Some(slot) = local.get_mut(d.name.index()) else {
                    continue;
                };
                if *slot == u32::MAX {
                    *slot = u32::try_from(definers.len()).unwrap_or(u32::MAX);
                    definers.push(0);
                    counted.push(usize::MAX);
                    generic.push(generic_name(names.name(d.name)));
                }
                let l = *slot as usize;
                if counted[l] != b {
                    counted[l] = b;
                    definers[l] += 1;
                    defined.push(*slot);
                }
            }
            defined_at.push(defined.len());
        }
        for (generic, &definers) in generic.iter_mut().zip(&definers) {
            *generic |= definers as usize > GENERIC_DEFINERS;
        }
        let mut totals = vec![0u64; definers.len()];
        let mut referrers = vec![0u32; definers.len()];
        let mut links_at = Vec::with_capacity(n + 1);
        let mut links: Vec<Link> = Vec::new();
        let mut out_weight = vec![0.0f64; n];
        links_at.push(0);
        for (a, file) in files.iter().enumerate() {
            let first = links.len();
            for &(name, count) in &file.symbols.references {
                let Some(&l) = local.get(name.index()).filter(|&&l| l != u32::MAX) else {
                    continue;
                };
                let li = l as usize;
                totals[li] += u64::from(count);
                referrers[li] += 1;
                let defines = file.symbols.defined.binary_search(&name).is_ok();
                if definers[li] == u32::from(defines) {
                    continue; // defined here only
                }
                // Per definer: sqrt(references) shared among the definers.
                let mut share = f64::from(count).sqrt() / f64::from(definers[li]);
                if generic[li] {
                    share *= GENERIC_WEIGHT;
                }
                links.push(Link {
                    name: l,
                    share,
                    defines,
                });
            }
            let own = &mut links[first..];
            own.sort_unstable_by_key(|link| link.name);
            out_weight[a] = own
                .iter()
                .map(|link| {
                    let targets = definers[link.name as usize] - u32::from(link.defines);
                    link.share * f64::from(targets)
                })
                .sum();
            links_at.push(links.len());
        }
        let modules = module_index(files);
        let mut imports = Vec::new();
        for (a, file) in files.iter().enumerate() {
            for module in &file.symbols.imports {
                if let Some(&b) = modules.get(&**module)
                    && b != a
                {
                    imports.push((a, b, 1.0));
                    out_weight[a] += 1.0;
                }
            }
        }
        // A name no link reaches never passes anything on: its definers need not look.
        let mut reached = vec![false; definers.len()];
        for link in &links {
            reached[link.name as usize] = true;
        }
        let mut receiving_at = Vec::with_capacity(n + 1);
        let mut receiving = Vec::new();
        receiving_at.push(0);
        for range in defined_at.windows(2) {
            receiving.extend(
                defined[range[0]..range[1]]
                    .iter()
                    .copied()
                    .filter(|&name| reached[name as usize]),
            );
            receiving_at.push(receiving.len());
        }
        // Shares of each source's damped rank, computed once.
        for (a, range) in links_at.windows(2).enumerate() {
            for link in &mut links[range[0]..range[1]] {
                link.share = DAMPING * link.share / out_weight[a];
            }
        }
        for (a, _, share) in &mut imports {
            *share = DAMPING / out_weight[*a];
        }
        Graph {
            files: n,
            local,
            definers,
            totals,
            referrers,
            receiving_at,
            receiving,
            links_at,
            links,
            imports,
            dangling: (0..n).filter(|&a| out_weight[a] == 0.0).collect(),
        }
    }

    /// Personalized PageRank with teleport weights `p` (summing to 1).
    pub(super) fn pagerank(&self, p: &[f64]) -> Vec<f64> {
        let n = self.files;
        let mut rank = p.to_vec();
        let mut next = vec![0.0; n];
        let mut mass = vec![0.0; self.definers.len()];
        for _ in 0..MAX_ITERATIONS {
            let dangling: f64 = self.dangling.iter().map(|&i| rank[i]).sum();
            for (slot, &pi) in next.iter_mut().zip(p) {
                *slot = (1.0 - DAMPING) * pi + DAMPING * dangling * pi;
            }
            mass.fill(0.0);
            for (a, range) in self.links_at.windows(2).enumerate() {
                for link in &self.links[range[0]..range[1]] {
                    let sent = rank[a] * link.share;
                    mass[link.name as usize] += sent;
                    if link.defines {
                        next[a] -= sent;
                    }
                }
            }
            for (b, range) in self.receiving_at.windows(2).enumerate() {
                for &name in &self.receiving[range[0]..range[1]] {
                    next[b] += mass[name as usize];
                }
            }
            for &(a, b, share) in &self.imports {
                next[b] += rank[a] * share;
            }
            let change: f64 = next.iter().zip(&rank).map(|(x, y)| (x - y).abs()).sum();
            std::mem::swap(&mut rank, &mut next);
            if change < TOLERANCE {
                break;
            }
        }
        rank
    }

    /// The definitions a file shows, heaviest first; a definition of a name the query steers
    /// to (`steered` gives its weight: infinite for a name the query names, above any count
    /// of references for one holding its words) comes before all others (an incidental one
    /// after those that are not) and is never set aside; an `incidental` one weighs less than
    /// any other (`-1 / (1 + references)`) and is shown only when the file has nothing else
    /// to show, and then only the [`INCIDENTAL_ALONE`] heaviest.
    pub(super) fn choose(
        &self,
        symbols: &Symbols,
        steered: &impl Fn(NameId) -> Option<f64>,
        incidental: &impl Fn(&DefinitionLine) -> bool,
    ) -> Vec<Shown> {
        // `None` for a name no file defines as an item (only nested or test definitions).
        let local = |name: NameId| {
            self.local
                .get(name.index())
                .filter(|&&l| l != u32::MAX)
                .map(|&l| l as usize)
        };
        let set_aside = |name| {
            self.files >= SET_ASIDE_MIN_FILES
                && local(name).is_some_and(|l| self.referrers[l] as usize * 2 > self.files)
        };
        let weigh = |name| -> f64 {
            if let Some(weight) = steered(name) {
                return weight;
            }
            let Some(l) = local(name).filter(|&l| self.totals[l] > 0) else {
                return 0.0;
            };
            let mine = u64::from(symbols.references_to(name));
            (self.totals[l] - mine) as f64 / f64::from(self.definers[l])
        };
        let all_set_aside = symbols.definitions.iter().all(|d| set_aside(d.name));
        let mut candidates: Vec<(f64, &DefinitionLine)> = symbols
            .definitions
            .iter()
            .filter(|d| all_set_aside || steered(d.name).is_some() || !set_aside(d.name))
            .map(|d| {
                let weight = weigh(d.name);
                if !incidental(d) {
                    (weight, d)
                } else if weight.is_finite() {
                    // Below every definition that is not (whose weights are never negative),
                    // however few its references; the more referenced still first.
                    (-1.0 / (1.0 + weight), d)
                } else {
                    // Named by the query: above every other, below a named one that is not.
                    (f64::MAX, d)
                }
            })
            .collect();
        candidates.sort_by(|x, y| y.0.total_cmp(&x.0).then_with(|| x.1.line.cmp(&y.1.line)));
        // Incidental definitions label a file; they do not fill it: listed only when the file
        // has nothing else to show, and then only the heaviest (one named by the query is
        // never incidental here: its weight is f64::MAX).
        let incidental_weight = |weight: f64| weight < 0.0;
        let labels_only = candidates.iter().all(|(w, _)| incidental_weight(*w));
        let mut incidentals = 0;
        // One definition per line (the heaviest), at most DEFINITIONS_PER_FILE.
        let mut shown: Vec<Shown> = Vec::new();
        for (weight, d) in candidates {
            if shown.len() == DEFINITIONS_PER_FILE {
                break;
            }
            if incidental_weight(weight) {
                if !labels_only || incidentals == INCIDENTAL_ALONE {
                    break;
                }
                incidentals += 1;
            }
            if shown.iter().all(|s| s.line != d.line) {
                shown.push(Shown {
                    line: d.line,
                    text: d.text.to_string(),
                    weight,
                });
            }
        }
        shown
    }
}

/// Module name → file, for every `…/lib/Foo/Bar.rakumod` (module `Foo::Bar`).
fn module_index(files: &[MapFile<'_>]) -> HashMap<String, usize> {
    let mut index = HashMap::new();
    for (i, file) in files.iter().enumerate() {
        let Some(stem) = file.path.strip_suffix(".rakumod") else {
            continue;
        };
        let below_lib = if let Some(rest) = stem.strip_prefix("lib/") {
            rest
        } else if let Some(at) = stem.rfind("/lib/") {
            &stem[at + 5..]
        } else {
            continue;
        };
        index.entry(below_lib.replace('/', "::")).or_insert(i);
    }
    index
}
