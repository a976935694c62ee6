"""Mention data with hashtags and planted topics (generators.mention.mention_tweets):
determinism, shape, hashtag use, visible topics, the CLI, and mention_edges unchanged."""

import hashlib

import numpy as np
import pytest
from click.testing import CliRunner

from hpgraph.cli.main import cli
from hpgraph.errors import InvalidArgumentError
from hpgraph.generators import mention_data, mention_edges, mention_tweets
from hpgraph.io import read_mentions

SEED = 7
N, M = 20_000, 25_000


@pytest.fixture(scope="module")
def tweets():
    return mention_tweets(N, M, hashtags=400, seed=SEED)


def topic_sets(planted):
    return [
        set(planted.user_topics[planted.user_ptr[u] : planted.user_ptr[u + 1]].tolist())
        for u in range(planted.user_ptr.shape[0] - 1)
    ]


def test_mention_edges_output_is_unchanged():
    """Benchmarks depend on mention_edges: digests of its output before mention_tweets."""
    want = {
        (2000, 2500, 1): "a8bff6cd8d6b4929f454df0a1c0a32e1f3fd3d415e0cf83fee55b7ca5f76b168",
        (20000, 25000, 3): "b26406da91b2270e13f33ed41f16c324afd8705297f5eb5a53837c7b1df94942",
    }
    for (n, m, seed), digest in want.items():
        src, dst = mention_edges(n, m, seed=seed)
        assert hashlib.sha256(src.tobytes() + dst.tobytes()).hexdigest() == digest


def test_deterministic_for_a_seed(tweets):
    again = mention_tweets(N, M, hashtags=400, seed=SEED)
    for a, b in zip(tweets[:4], again[:4], strict=True):
        np.testing.assert_array_equal(a, b)
    assert tweets.tag_names == again.tag_names
    np.testing.assert_array_equal(tweets.planted.user_topics, again.planted.user_topics)
    other = mention_tweets(N, M, hashtags=400, seed=SEED + 1)
    assert not np.array_equal(tweets.dst, other.dst)


def test_shape(tweets):
    src, dst, ptr, tags, names, planted = tweets
    assert src.shape == dst.shape == (M,) and src.dtype == np.int32
    assert not (src == dst).any()
    degree = np.bincount(src, minlength=N) + np.bincount(dst, minlength=N)
    assert (degree > 0).all()  # every user takes part
    assert 0.45 < np.mean(degree == 1) < 0.6  # many leaves, like the seed's Twitter graph
    indeg = np.bincount(dst, minlength=N)
    assert indeg.max() > 50 * indeg.mean()  # heavy hubs
    counts = np.diff(ptr)
    assert ptr[0] == 0 and ptr[-1] == tags.size and ptr.shape == (M + 1,)
    assert abs(np.mean(counts > 0) - 0.3) < 0.015  # the default share with hashtags
    assert 1.3 < counts[counts > 0].mean() < 1.7
    rows_ok = all((np.diff(tags[ptr[i] : ptr[i + 1]]) > 0).all() for i in range(M))
    assert rows_ok  # ascending and distinct
    assert names == sorted(names) and len(names) == 400 and names[0] == "tag000"
    assert planted.core.sum() == round(0.4 * N)
    k = np.diff(planted.user_ptr)
    assert set(np.unique(k[planted.core])) == {1, 2, 3} and (k[~planted.core] == 1).all()
    assert 0.08 < np.mean(k[planted.core] > 1) < 0.12  # overlap 0.1
    tptr, ttags = planted.topic_tags()
    assert (np.diff(tptr) > 0).all() and sorted(ttags.tolist()) == list(range(400))
    assert (planted.tag_topic[ttags[tptr[3] : tptr[4]]] == 3).all()


def test_hashtag_popularity_is_heavy_tailed(tweets):
    uses = np.bincount(tweets.tag_ids, minlength=400)
    assert uses[0] > 10 * np.median(uses)  # tag000 is the most popular by construction
    assert uses.argmax() < 5


def test_topic_users_use_their_topics_hashtags(tweets):
    src, _, ptr, tags, _, planted = tweets
    sets = topic_sets(planted)
    sender = np.repeat(src, np.diff(ptr))
    own = np.mean([planted.tag_topic[t] in sets[u] for u, t in zip(sender, tags, strict=True)])
    # random: the share of hashtags' topic mass a random user's topics cover
    rng = np.random.default_rng(SEED)
    shuffled = rng.permutation(sender)
    chance = np.mean([planted.tag_topic[t] in sets[u] for u, t in zip(shuffled, tags, strict=True)])
    assert own > 0.8 and chance < 0.2


@pytest.mark.parametrize("mixing, low, high", [(0.3, 0.6, 1.0), (1.0, 0.0, 0.15)])
def test_planted_topics_are_visible(mixing, low, high):
    """Core mentions inside a topic: far above the random share with the default mixing,
    near it when every target ignores the topic (so the check can fail)."""
    t = mention_tweets(N, M, hashtags=400, topics=20, mixing=mixing, seed=SEED)
    p = t.planted
    sets = topic_sets(p)
    core = p.core[t.src] & p.core[t.dst]
    intra = np.mean(
        [bool(sets[a] & sets[b]) for a, b in zip(t.src[core], t.dst[core], strict=True)]
    )
    size = np.bincount(p.user_topics[np.repeat(p.core, np.diff(p.user_ptr))], minlength=20)
    random_share = ((size / size.sum()) ** 2).sum()
    assert random_share < 0.15
    assert low < intra < high


def test_tagged_share_extremes():
    none = mention_tweets(3000, 4000, hashtags=50, tagged=0.0, seed=1)
    assert none.tag_ids.size == 0 and (none.tag_ptr == 0).all()
    every = mention_tweets(3000, 4000, hashtags=50, tagged=1.0, general=0.0, seed=1)
    assert (np.diff(every.tag_ptr) > 0).all()
    sets = topic_sets(every.planted)
    sender = np.repeat(every.src, np.diff(every.tag_ptr))
    assert all(
        every.planted.tag_topic[t] in sets[u] for u, t in zip(sender, every.tag_ids, strict=True)
    )


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"n": 1000, "m": 200}, "m=200 is too small"),
        ({"hashtags": 5, "topics": 6}, "need 1 <= topics <= hashtags"),
        ({"tagged": 1.5}, "tagged must be in [0, 1]"),
        ({"overlap": 0.9}, "overlap must be in [0, 0.8]"),
        ({"seed": -1}, "seed must be a non-negative integer"),
    ],
)
def test_bad_arguments(kw, message):
    args = {"n": 1000, "m": 1300, **kw}
    with pytest.raises(InvalidArgumentError, match=message.replace("[", r"\[").replace("]", r"\]")):
        mention_tweets(args.pop("n"), args.pop("m"), **args)


def test_mention_data_and_initial_labels():
    men, planted = mention_data(3000, 4000, hashtags=60, seed=2)
    t = mention_tweets(3000, 4000, hashtags=60, seed=2)
    np.testing.assert_array_equal(men.src, t.src)
    np.testing.assert_array_equal(men.tag_ids, t.tag_ids)
    assert men.graph.ids is None and men.num_users == 3000 and men.num_hashtags == 60
    vl = men.initial_labels()
    sets = topic_sets(planted)
    hits = total = 0
    for u in np.flatnonzero(planted.core):
        a, b = vl.ptr[u], vl.ptr[u + 1]
        if b > a:  # the user's most used hashtag belongs to one of its topics
            top = vl.labels[a + int(np.argmax(vl.weights[a:b]))]
            hits += planted.tag_topic[top] in sets[u]
            total += 1
    assert total > 200 and hits / total > 0.75


def test_cli_generate_mention(tmp_path):
    runner = CliRunner()
    out = tmp_path / "m.tsv"
    args = ["generate", "mention", "-n", "3k", "-m", "4k", "--hashtags", "60", "--seed", "2"]
    r = runner.invoke(cli, [*args, "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "users          3,000 (1,200 in the topic core)" in r.output
    assert "with hashtags" in r.output and "wrote " in r.output
    back = read_mentions(out)
    t = mention_tweets(3000, 4000, hashtags=60, seed=2)
    np.testing.assert_array_equal(back.graph.user_ids()[back.src], t.src)
    np.testing.assert_array_equal(np.diff(back.tag_ptr), np.diff(t.tag_ptr))
    r = runner.invoke(cli, [*args, "-o", str(tmp_path / "m.parquet")])
    assert r.exit_code == 0 and read_mentions(tmp_path / "m.parquet").num_mentions == 4000
    bad = runner.invoke(cli, ["generate", "mention", "--scale", "5"])
    assert bad.exit_code == 2 and "mention takes --vertices" in bad.output
    bad = runner.invoke(cli, [*args, "-o", str(tmp_path / "m.csv")])
    assert bad.exit_code == 2


@pytest.mark.parametrize("n, m", [(5, 5), (8, 9), (20, 40)])
def test_planted_rows_hold_exactly_the_users_topics(n, m):
    # tiny graphs with no stars: the topics array used to hold one uninitialised extra entry
    p = mention_tweets(n, m, core_fraction=0.9, seed=0).planted
    assert p.user_topics.shape[0] == p.user_ptr[-1]
