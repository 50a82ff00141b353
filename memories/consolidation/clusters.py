"""The dream pass's map of a member's facts: k-means over their embeddings, each cluster's
facts ordered by closeness to its centroid (the first few are its core, the next its
supporters), and the cluster pairs ordered by how far apart their centroids are.

k-means is scikit-learn's, with ``random_state=dream_seed`` and a fixed ``n_init`` over the facts
in id order, so the same facts give the same clusters every time."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from django.conf import settings
from sklearn.cluster import KMeans

from memories.consolidation import store
from memories.models import Memory
from memories.vector_search import own_vectors
from talkingrock import embeddings

# Fewer facts than this and there are no "distant areas" of a life to bridge yet.
MIN_FACTS = 12
# The dream pass reads the member's newest facts, at most this many: k-means over 5,000 vectors
# of 384 dimensions takes about a second on two cores, and a dream about this year's facts is
# worth more than one about a decade-old one.
MAX_FACTS = 5000
K_MIN, K_MAX = 2, 12
N_INIT = 4  # k-means restarts, fixed (scikit-learn's "auto" would depend on its version)
CORE, SUPPORTERS = 3, 5


def k_for(n: int) -> int:
    """The number of clusters for ``n`` facts: round(sqrt(n / 2)), the textbook rule of thumb,
    between 2 and 12 (a household member's life has a handful of areas, not dozens)."""
    return max(K_MIN, min(K_MAX, round(math.sqrt(n / 2))))


def min_facts() -> int:
    return settings.TALKINGROCK_CONSOLIDATION.get("dream_min_facts", MIN_FACTS)


@dataclass
class Clusters:
    facts: list[Memory]  # in id order
    vectors: np.ndarray  # (n, 384) unit vectors, in the same order
    labels: np.ndarray  # (n,) cluster of each fact
    centroids: np.ndarray  # (k, 384), unit length

    @property
    def k(self) -> int:
        return len(self.centroids)

    @cached_property
    def members(self) -> list[list[int]]:
        """Each cluster's fact indexes, nearest its centroid first (ties: lower id)."""
        closeness = np.einsum("ij,ij->i", self.vectors, self.centroids[self.labels])
        found: list[list[int]] = [[] for _ in range(self.k)]
        for index in sorted(range(len(self.facts)), key=lambda i: (-closeness[i], i)):
            found[int(self.labels[index])].append(index)
        return found

    def core(self, cluster: int) -> list[Memory]:
        return [self.facts[i] for i in self.members[cluster][:CORE]]

    def supporters(self, cluster: int) -> list[Memory]:
        return [self.facts[i] for i in self.members[cluster][CORE : CORE + SUPPORTERS]]

    def facts_in(self, cluster: int) -> list[Memory]:
        return [self.facts[i] for i in self.members[cluster]]

    def distance(self, a: int, b: int) -> float:
        """Cosine distance between two clusters' centroids (0 the same direction, 1 unrelated)."""
        return float(1.0 - self.centroids[a] @ self.centroids[b])

    def pairs(self) -> list[tuple[float, int, int]]:
        """Every pair of non-empty clusters as (distance, a, b), the most distant first."""
        live = [c for c in range(self.k) if self.members[c]]
        found = [(self.distance(a, b), a, b) for n, a in enumerate(live) for b in live[n + 1 :]]
        return sorted(found, key=lambda p: (-p[0], p[1], p[2]))


def facts_with_vectors(owner_id: int) -> tuple[list[Memory], np.ndarray]:
    """The member's newest facts (at most MAX_FACTS) that have their own vector, in id order.
    The vector's owner is checked too: a fact is only ever weighed with its owner's."""
    newest = store.facts_of(owner_id).order_by("-id").values_list("pk", flat=True)[:MAX_FACTS]
    found = own_vectors(list(newest))
    ids = sorted(pk for pk, (owner, _) in found.items() if owner == owner_id)
    facts = list(store.with_mentions(store.facts_of(owner_id).filter(pk__in=ids).order_by("pk")))
    if not facts:
        return [], np.zeros((0, embeddings.DIMENSIONS), dtype=np.float32)
    vectors = np.stack([np.frombuffer(found[f.pk][1], dtype=np.float32) for f in facts])
    return facts, vectors


def cluster(facts: list[Memory], vectors: np.ndarray, *, seed: int | None = None) -> Clusters:
    seed = settings.TALKINGROCK_CONSOLIDATION["dream_seed"] if seed is None else seed
    model = KMeans(n_clusters=k_for(len(facts)), random_state=seed, n_init=N_INIT)
    labels = model.fit_predict(vectors.astype(np.float64))
    centroids = model.cluster_centers_
    centroids = centroids / np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
    return Clusters(facts, vectors, labels, centroids.astype(np.float32))


def clusters_of(owner_id: int) -> Clusters | None:
    """The member's clusters, or None when they have fewer than ``min_facts()`` facts."""
    facts, vectors = facts_with_vectors(owner_id)
    if len(facts) < min_facts():
        return None
    return cluster(facts, vectors)
