# %% [markdown]
# # 7. Link prediction: the leak, the negatives, new links
#
# Will two nodes be linked? The GCN embeds every node over the known links, and a decoder scores a pair
# of embeddings. The classic mistake is to leave the links being scored in the graph the GCN passes
# messages over: each pair's embeddings then carry their own link. On a real graph (Les Misérables'
# characters, linked when they meet in a chapter, as networkx ships it): the split that avoids it, a
# batch of links and non-links, what the leak does to the scores, why the encoder ends in a linear map,
# and a character's most likely new links.

# %%
import os
import tempfile

# Runs write logs/ and data/ into the working folder: keep them out of the repository.
os.chdir(tempfile.mkdtemp(prefix="notebook-"))

# %%
import csv
import logging
import warnings

import networkx
import torch

from project.cli import build
from project.data.graphs.link_pairs import EdgeSet, message_edges

logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
warnings.filterwarnings("ignore", ".*does not have many workers.*")

# The edge list as a user would write it: character names, and how often they meet as the weight.
with open("lesmis.csv", "w", newline="") as handle:
    writer = csv.writer(handle)
    writer.writerow(["src", "dst", "weight"])
    for a, b, data in networkx.les_miserables_graph().edges(data=True):
        writer.writerow([a, b, data["weight"]])

QUIET = ["--trainer.enable_progress_bar=false", "--trainer.enable_model_summary=false"]
# No node features in this graph: a learned vector per node (embedding_dim) lets the GCN tell them apart.
DATA = ["--data.source=csv", "--data.train_path=lesmis.csv", "--model.net.embedding_dim=32"]
dm = build("gcn_link", *QUIET, *DATA).datamodule
print("nodes:", dm.num_nodes, "| links per part:", {part: links.shape[1] for part, links in dm.links.items()})

# %% [markdown]
# ## The split: held-out links never carry messages
#
# Messages pass over the training links only, both ways (the graph is undirected), at every stage.

# %%
passing = EdgeSet(dm.message_graph, dm.num_nodes)
for part in ("val", "test"):
    src, dst = dm.links[part]
    inside = passing.contains(src, dst) | passing.contains(dst, src)
    print(f"{part} links inside the message graph: {int(inside.sum())} of {inside.numel()}")
print("message graph:", dm.message_graph.shape[1], "edges = 2 x", dm.links["train"].shape[1], "training links")

# %% [markdown]
# ## A batch: each link beside its negatives
#
# A row is a true link (column 0) and non-links from the same source node: one per training link, drawn
# afresh each epoch; 100 per validation link, fixed by the seed, for the ranking metrics (MRR, Hits@10).

# %%
dm.setup("fit")
batch = next(iter(dm.val_dataloader()))
row = batch.n_id[batch.pairs[:, 0, :4]]
names = dm.node_names
print("link:", names[row[0, 0]], "-", names[row[1, 0]], "| non-links:", [names[d] for d in row[1, 1:]])
print("targets", batch.y[0, :4].tolist(), "... a batch of", list(batch.y.shape), "pairs")

# %% [markdown]
# ## The leak in numbers
#
# The same model twice: honestly, and with the test links left in the message graph (what a pipeline
# that splits the labels but not the graph does). Test metrics at the best checkpoint.


# %%
def fit_and_test(leak: bool):
    cli = build("gcn_link", *QUIET, *DATA)
    if leak:
        dm = cli.datamodule
        links = torch.cat([dm.links["train"], dm.links["test"]], dim=1)
        dm.message_graph, dm.message_weight = message_edges(links, undirected=True)
    cli.trainer.fit(cli.model, cli.datamodule)
    return cli, cli.trainer.test(cli.model, cli.datamodule, ckpt_path="best", verbose=False)[0]


honest_cli, honest = fit_and_test(leak=False)
_, leaky = fit_and_test(leak=True)
for name in ("test/auroc", "test/mrr", "test/hits_at_k"):
    print(f"{name:15} honest {honest[name]:.3f}   leaky {leaky[name]:.3f}")

# %% [markdown]
# The leaky scores are higher, and they measure nothing useful: a link the model is asked about was
# shown to it. On new links (the ones that matter) the model is the honest one. The leaky run did not
# pass unnoticed: the Diagnostics callback compared the edge sets and warned, in the log above, that
# all 25 test links were also in the graph messages pass over.
#
# ## Why the encoder ends in a linear map
#
# The GCN's layers end in a ReLU. A dot product of two non-negative vectors is never negative, so
# without a map after the encoder every pair would score a probability of at least 0.5, and the
# non-links' loss could never fall below ln 2.

# %%
z = torch.relu(torch.randn(2000, 32))
scores = (z[:1000] * z[1000:]).sum(dim=1)
print(f"smallest dot product of ReLU outputs: {scores.min():.3f}; smallest probability: {scores.sigmoid().min():.3f}")

# %% [markdown]
# ## Valjean's most likely new links
#
# `predict` ranks every character as a candidate for the query node, leaves out the links the graph
# has (in any part of the split) and the node itself, and writes the names back.

# %%
predictor = build("gcn_link", *QUIET, *DATA, "--data.predict_nodes=[Valjean]", "--data.top_k=5")
checkpoint = honest_cli.trainer.checkpoint_callback.best_model_path
predictor.trainer.predict(predictor.model, predictor.datamodule, ckpt_path=checkpoint)
with open(os.path.join(predictor.trainer.log_dir, "predictions.tsv")) as handle:
    for line in handle:
        print(line.rstrip())
