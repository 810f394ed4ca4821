"""The *Myth or fact?* claims of notebooks 01-07: one home for each claim, its verdict, why, the feedback per choice.

Each claim is asked before it is answered: the notebook shows ``cu.widgets.MythOrFact("01-best-key")`` (the claim
and two buttons, **Myth** and **Fact**; the verdict, the explanation and the feedback for the choice appear only
after a choice), and right below it a markdown cell that holds the same verdict folded away in a
``<details><summary>Verdict (choose first)</summary>`` for a page without a running notebook (GitHub, nbconvert,
``python tools/html_pages.py``). That markdown cell is generated from this table (``verdict_markdown``) and
checked against it by the tests, so the words have one home: here. ``python tools/myths.py --write``
writes the cells after an edit of this table.

Text fields are markdown with inline maths (``$...$``), ``**bold**``, ``*italics*`` and ```code``` only: the widget
turns them into HTML (``course_utils.widgets.myths``), and the notebooks render them as they are.

The concept inventory (``course_utils.lessons.inventory``) names some of these claims as its distractors.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

__all__ = ["ANSWERS", "CLAIMS", "Claim", "by_key", "claims_of", "verdict_markdown"]

#: Where the demonstration of a claim is, as the widget and the folded verdict say it.
DEMO_NOTE = "The demonstration is the code cell after the folded verdict."
#: The width the notebooks' markdown is wrapped at.
WIDTH = 118
_MATH = re.compile(r"\$[^$]+\$")
_NO_BREAK = "\x00"

#: The choices a learner has, as (key, button label); every claim's ``answer`` is one of the keys.
ANSWERS = (("myth", "Myth"), ("fact", "Fact"))
_LABEL = dict(ANSWERS)


@dataclass(frozen=True)
class Claim:
    """One claim of a notebook's *Myth or fact?* section.

    Attributes
    ----------
    key : str
        ``"NN-name"``: NN is the notebook's number (``"01-best-key"``); what ``MythOrFact`` is called with.
    claim : str
        The claim, without its quotes (markdown).
    answer : {"myth", "fact"}
        The choice marked correct.
    ruling : str
        The verdict as the notebook words it: ``"Myth"``, ``"Myth, as worded"``, ``"Fact, within one row"``.
    explanation : str
        Why, in a few sentences (markdown); a demonstration cell, if any, comes right after the verdict.
    feedback : dict
        Choice key -> what a learner who made that choice probably believed (a wrong choice), or what to keep from
        it (the right one), and where the notebook shows it.
    demo : str or None
        The id of the demonstration cell that follows the verdict; None when an earlier section shows it.
    """

    key: str
    claim: str
    answer: str
    ruling: str
    explanation: str
    feedback: dict
    demo: str | None = None

    @property
    def notebook(self) -> str:
        """The notebook's number, ``"01"``."""
        return self.key[:2]

    def label(self, choice: str) -> str:
        """The button label of a choice key (``"myth"`` -> ``"Myth"``)."""
        return _LABEL[choice]

    def is_correct(self, choice: str) -> bool:
        return choice == self.answer


def _claim(key, claim, answer, ruling, explanation, *, myth, fact, demo=None):
    return Claim(key, claim, answer, ruling, explanation, {"myth": myth, "fact": fact}, demo)


CLAIMS = (
    # -- 01 · One attention row --------------------------------------------------------------------------------------
    _claim(
        "01-best-key", "Attention picks the best key.", "myth", "Myth",
        "Softmax gives every key with a finite score a positive weight; a large gap makes the choice *nearly* hard, "
        "never exactly.",
        fact="You probably pictured attention as a lookup that returns the highest-scoring key (an argmax). Softmax "
             "is soft: every weight of the article's row in section 3 is positive, and the demonstration below "
             "pushes the gap to 20: the other keys keep tiny positive weights, not zeros.",
        myth="The largest score gets the largest share, not all of it: the demonstration below pushes the gap to 20, "
             "and the other weights are tiny but not zero.",
        demo="nb01-myth-hard-code"),
    _claim(
        "01-max-shift", "Subtracting the maximum is an approximation.", "myth", "Myth",
        "It is exact algebra (section 4); it only stops the exponentials from overflowing or all underflowing.",
        fact="You probably took the shift for a numerical trick that trades a little accuracy for safety. It trades "
             "nothing: $e^{-m}$ multiplies every term and the sum alike, and cancels. Section 4 shows `[1000, 999, "
             "998]` giving the same weights as `[2, 1, 0]`.",
        myth="The factor $e^{-m}$ cancels between each term and the sum; section 4 shows shifted and unshifted rows "
             "agree wherever the unshifted one does not overflow."),
    _claim(
        "01-bigger-score", "A bigger score always means a bigger weight.", "fact", "Fact, within one row",
        "Softmax keeps the order of the scores. Across two different rows, weights are not comparable by score "
        "alone, because each row is normalised on its own.",
        myth="Perhaps you had two different rows in mind, where it does fail: the demonstration below gives the same "
             "score 3.0 a large weight among small scores and about a third of it among nearly equal ones. Within one "
             "row, $e^{s}$ grows with $s$ and every weight shares one normaliser, so the order is kept, as moving "
             "the scores in section 6 shows.",
        fact="Within one row, $e^{s}$ grows with $s$ and all the weights share one denominator. Only across rows "
             "does it fail, because each row is normalised on its own: the demonstration below gives the same score "
             "two different weights.",
        demo="nb01-myth-order-code"),
    _claim(
        "01-blend", "The output is a blend of the input tokens.", "myth", "Myth, as worded",
        "It is a blend of **value vectors**, which in a real model are projections of the tokens' hidden states "
        "(notebook 02), not token IDs (section 5).",
        fact="The picture is close, which is why it misleads: the output is a weighted average, but of value "
             "vectors, not of the tokens. Averaging token IDs gives meaningless numbers; section 5 shows the output "
             "inside the hull of the values, and notebook 02 shows where values come from ($x W_V$).",
        myth="What is blended is each token's value vector, a learned projection of it, not the token itself "
             "(section 5)."),
    # -- 02 · Queries, keys and values -------------------------------------------------------------------------------
    _claim(
        "02-query-question", "The query is a question the token asks, in some readable form.", "myth", "Myth",
        "A query is a vector that only means something *relative to the keys* it is dotted with. Rotate every query "
        "and every key by the same random rotation $R$: each query becomes a completely different list of numbers, "
        "yet every score, weight and output stays the same, since $(QR)(KR)^\\top = Q R R^\\top K^\\top = Q K^\\top$.",
        fact="The names query, key and value invite that reading: a token asking something. But a query is numbers "
             "whose only job is their dot products with the keys. The demonstration below rotates every query and "
             "key: each query changes completely, and no score, weight or output moves. Nothing readable was in the "
             "numbers.",
        myth="A query means something only through its dot products with the keys: the demonstration below changes "
             "every query by a rotation, and nothing else changes.",
        demo="nb02-myth-query-code"),
    _claim(
        "02-key-dictionary", "A key is looked up like a dictionary key.", "myth", "Myth",
        "A dictionary returns the value of the one key that matches exactly, or fails. Attention matches nothing "
        "exactly: the query of \"missing\" equals none of the keys, and still every key gets a positive weight, "
        "because softmax is soft (notebook 01).",
        fact="The word comes from databases, and the analogy holds halfway: keys are compared with the query. But a "
             "dictionary needs an exact match and returns one value; attention scores every key, match or not, and "
             "returns a blend. In the demonstration below the query of \"missing\" equals no key, yet every key gets "
             "a positive weight.",
        myth="No exact match is needed or made: every key gets some weight (demonstration below).",
        demo="nb02-myth-key-code"),
    _claim(
        "02-values-facts", "Values are facts about the tokens.", "myth", "Myth",
        "A value is the vector $x W_V$: change $W_V$ and the \"value of charger\" changes, though the token did not. "
        "The output of \"missing\" is a weighted average of such vectors, a list of numbers, not a sentence like "
        "\"the charger is missing\". Our hand-made values read as (item, problem) only because we wrote them that "
        "way; with another $W_V$ the same token has values no one can read.",
        fact="Our hand-made values read like (item, problem), so the idea is natural. But a value is $x W_V$: change "
             "$W_V$ and the value of the same token changes (demonstration below). Values are whatever the learned "
             "projection makes them, usually unreadable.",
        myth="A value depends on $W_V$ as much as on the token: the demonstration below gives \"charger\" another "
             "value with another $W_V$.",
        demo="nb02-myth-value-code"),
    _claim(
        "02-self-itself", "Self-attention means each token attends to itself.", "myth", "Myth",
        "\"Self\" names the shared source of $Q$, $K$ and $V$ (section 4). With the hand-made matrices no row put "
        "its largest weight on its own token; with the random matrices of section 2, count for yourself.",
        fact="The word suggests it, but \"self\" names where $Q$, $K$ and $V$ come from: all three from the same "
             "sequence (section 4), where cross-attention takes its queries from another. A token may attend to "
             "itself or not: the demonstration below counts how often it does with random matrices.",
        myth="\"Self\" means queries, keys and values come from one sequence (section 4), not that a token's own "
             "column wins.",
        demo="nb02-myth-self-code"),
    _claim(
        "02-sqrt-winner", "Dividing by $\\sqrt{d_k}$ decides which key wins.", "myth", "Myth",
        "It divides a whole row by one positive number, so the order of the scores, and the winner, stay the same "
        "(section 6). It only controls how *peaked* the weights are.",
        fact="The scaling matters, which makes this tempting: without it, wide keys saturate the softmax (section "
             "6). But dividing every score of a row by the same positive number keeps their order, so the same key "
             "wins; only how sharply it wins changes.",
        myth="One positive divisor per row keeps the order of the scores: it sets how peaked the weights are, not "
             "the winner (section 6)."),
    # -- 03 · Masks --------------------------------------------------------------------------------------------------
    _claim(
        "03-zero-after", "Zeroing the blocked weights after the softmax is just another way to mask.", "myth", "Myth",
        "The hidden keys still shape the visible weights through the normaliser (section 5), and the rows stop "
        "summing to one, as the row sums of section 5 show again in the demonstration below. Renormalising repairs "
        "it in exact arithmetic, because it *is* masking first computed in two steps, but it can underflow to 0 / 0 "
        "(section 5).",
        fact="Both end with zeros in the blocked places, so they look alike in a heatmap. But the softmax had "
             "already divided by a sum that included the blocked keys: the visible weights are too small and the "
             "rows no longer sum to one (section 5; the demonstration below prints the row sums).",
        myth="The blocked keys already took their share of the normaliser, so the mask must come before the softmax "
             "(section 5; the demonstration below prints the row sums of zeroing after).",
        demo="nb03-myth-zero-code"),
    _claim(
        "03-minus-1e9",
        "A large negative number such as -1e9 masks as well as -inf.",
        "fact", "Fact, for every row with a permitted key",
        "$e^{-10^9}$ is exactly 0 in floating point. But in a row with **no** permitted key every score is about "
        "$-10^9$, the softmax spreads the weight evenly over keys that should be hidden, and the bug hides instead "
        "of failing.",
        myth="Half right, which is why the exception matters: in every row with a permitted key, $e^{-10^9}$ is "
             "exactly 0, the same as $e^{-\\infty}$ (the demonstration below finds no difference). The catch is a "
             "row with no permitted key: there -1e9 spreads the weight evenly over hidden keys, where -inf with "
             "course_utils' softmax gives zeros (section 6).",
        fact="Right for every row with a permitted key. Keep the exception: in a row with no permitted key, -1e9 "
             "quietly spreads the weight over hidden keys (demonstration below; section 6).",
        demo="nb03-myth-big-code"),
    _claim(
        "03-pad-queries", "A padding mask must block the padded queries too.", "myth", "Myth",
        "Masking the padded **keys** protects every real token; blocking the `<pad>` rows as well changes no real "
        "output, and only creates rows with no permitted key.",
        fact="It feels symmetric: if a pad is not a token, it should neither attend nor be attended to. But a real "
             "token's output depends only on its own row, which the key mask already protects; the outputs of the "
             "`<pad>` rows are never used. Blocking them too only creates rows with no permitted key (demonstration "
             "below).",
        myth="Real outputs depend only on real rows, which masking the keys already protects (demonstration below).",
        demo="nb03-myth-rows-code"),
    _claim(
        "03-plot-right", "If the attention plot looks right, the model is right.", "myth", "Myth",
        "A plot shows *where* weight may go and where it went, which is exactly what a mask bug changes, so it is a "
        "good diagnostic for masks and for patterns. It does not show *what* was mixed: the same weights mix "
        "different values into different outputs, and notebook 05 shows why a heatmap alone does not explain a "
        "prediction.",
        fact="Section 7 catches mask bugs at a glance in plots, so trusting a good-looking plot is natural. But a "
             "plot shows weights only: the same weights mix different values into different outputs (demonstration "
             "below), and notebook 05 shows that the brightest cell need not be what drives a prediction.",
        myth="A plot diagnoses where the weight went (section 7), not what was mixed or whether the output is right "
             "(demonstration below; notebook 05).",
        demo="nb03-myth-plot-code"),
    # -- 04 · Multi-head attention -----------------------------------------------------------------------------------
    _claim(
        "04-head-3-syntax", "Head 3 is the syntax head.", "myth", "Myth, as a statement about a head *number*",
        "Relabel the heads (section 6) and \"head 3\" is a different head in the same model, with the same output. "
        "Whether some head in a trained model tracks something like syntax is a question for measurement, not for "
        "its index.",
        fact="Descriptions of trained models name heads by job, so a head number can sound like a fixed role. "
             "Nothing in the computation assigns one: heads are interchangeable slots, and relabelling them (section "
             "6) gives the same output with a different \"head 3\" (demonstration below). A role, if any, is "
             "measured in one trained model.",
        myth="A head's index is a label: relabel the heads and the model computes the same thing (section 6; "
             "demonstration below).",
        demo="nb04-myth-index-code"),
    _claim(
        "04-more-heads-params", "More heads means more parameters.", "myth", "Myth",
        "The same four $d_{\\text{model}} \\times d_{\\text{model}}$ matrices serve any number of heads (section 3). "
        "What the number of heads changes is the *function*: the same parameters grouped into 1 or 4 softmaxes give "
        "different outputs.",
        fact="More heads sounds like more machinery. But the heads split the columns of the same four "
             "$d_{\\text{model}} \\times d_{\\text{model}}$ matrices (section 3): with $h$ heads each is "
             "$d_{\\text{model}}/h$ wide, and the count stays $4\\,d_{\\text{model}}^2$. The demonstration below "
             "compares 1 head and 4.",
        myth="The same four matrices, grouped into more and narrower heads (section 3): the function changes, the "
             "count does not (demonstration below).",
        demo="nb04-myth-params-code"),
    _claim(
        "04-heads-differ", "Heads must attend differently.", "myth", "Myth",
        "Nothing in the computation forces heads apart: give head 1 the same columns as head 0 and the two draw "
        "identical weights, and the model still runs. Training often makes heads differ, but trained models also "
        "have redundant heads: Michel et al. (2019) removed many heads of trained models at test time with little "
        "loss in quality.",
        fact="Trained heads often do differ, and their separate projections make it look built in. Nothing forces "
             "it: give two heads the same columns and they draw identical weights (demonstration below). Trained "
             "models also have redundant heads (Michel et al., 2019).",
        myth="Differences come from training, if at all: two heads with the same columns attend identically "
             "(demonstration below).",
        demo="nb04-myth-different-code"),
    _claim(
        "04-split-loses", "Splitting into heads throws information away.", "myth", "Myth",
        "Splitting and merging only move entries (section 4: `merge_heads(split_heads(Q))` gives `Q` back exactly). "
        "Each head sees only its $d_{\\text{head}}$ columns of the queries, keys and values, but together the heads "
        "see all of them, and $W_O$ mixes all their outputs.",
        fact="Each head sees only a slice of the columns, so it looks like a loss. But the slices together cover "
             "every column, splitting and merging only move entries (section 4: `merge_heads(split_heads(Q))` gives "
             "`Q` back exactly), and $W_O$ mixes the outputs of all heads.",
        myth="Split and merge move entries only (section 4), and the heads together see every column."),
    _claim(
        "04-mha-definition",
        "Multi-head attention is several attentions side by side, concatenated, then projected by $W_O$.",
        "fact", "Fact",
        "That is the whole definition (Vaswani et al., 2017, section 3.2.2). Each head is notebook 02's attention at "
        "width $d_{\\text{head}}$, with notebook 03's mask.",
        myth="Perhaps it sounded too simple, or you expected the heads to interact before the end. They do not: each "
             "head is notebook 02's attention on its own columns (section 2's loop), and the only mixing is the "
             "concatenation and $W_O$ (section 4).",
        fact="Section 2's loop is exactly that, and section 4 does it for every head at once."),
    # -- 05 · Reading attention plots --------------------------------------------------------------------------------
    _claim(
        "05-brightest", "The brightest cell is the reason for the prediction.", "myth", "Myth",
        "In the experiment the brightest key ranks fourth of five by its effect on the output, and second to last on "
        "the prediction.",
        fact="The brightest cell is where most weight went, so it looks like the cause. But a weight times a value "
             "is what enters the output (section 3), removing keys ranks them differently (section 4), and the "
             "prediction gives a third ranking (section 6). The demonstration below names the first of each.",
        myth="A weight is not an effect: removals (section 4) and the prediction (section 6) rank the keys "
             "differently (demonstration below).",
        demo="nb05-myth-bright-code"),
    _claim(
        "05-attends-uses", "A head that attends to X uses X.", "myth", "Myth",
        "Attending decides *how much* of X's value is mixed in; if that value carries nothing, nothing arrives. Give "
        "charger a zero value: the weights, and so the heatmap, are identical, but charger contributes nothing at "
        "all.",
        fact="Attending sounds like using. But attention decides how much of X's value is mixed in; if that value "
             "carries nothing, nothing arrives. The demonstration below gives charger a zero value: same weights, "
             "same heatmap, no contribution. Section 5's slider shows the same by scaling one value.",
        myth="The weight sets how much of the value is mixed in, and a value can carry nothing (demonstration below; "
             "section 5's slider).",
        demo="nb05-myth-uses-code"),
    _claim(
        "05-one-at-a-time", "Removing keys one at a time tells the whole story.", "myth", "Myth",
        "Effects do not add up: keys can stand in for each other (remove one and the others fill in) or not. Remove "
        "\"my\" and \"charger\" together, then \"my\" and \"please\".",
        fact="Removal effects (section 4) are real measurements, so adding them up seems fair. But keys can stand in "
             "for each other: remove one and the others fill in. The demonstration below removes two at once, and "
             "the pairs move the output by more, or less, than their single effects add up to.",
        myth="Effects do not add: pairs of keys can fill in for each other (demonstration below).",
        demo="nb05-myth-additive-code"),
    _claim(
        "05-plots-useless", "Then attention plots are useless.", "myth", "Myth",
        "They find mask bugs and collapsed softmaxes at a glance (section 2), and they are a fine place to *start* a "
        "hypothesis about a head, which you then test by intervening.",
        fact="After three myths against reading too much into plots, that is a fair reaction, but it goes too far. "
             "Section 2 finds mask bugs and collapsed softmaxes in a plot at a glance, and a plot is a fine start "
             "for a hypothesis that you then test by intervening (section 4).",
        myth="Plots diagnose (section 2) and suggest hypotheses; interventions test them (section 4)."),
    # -- 06 · Learned attention --------------------------------------------------------------------------------------
    _claim(
        "06-told", "The model was told that missing relates to charger.", "myth", "Myth",
        "The training data holds tickets and answers, and the code holds one generic head. Feed the *same code* "
        "tickets read backwards, where the item now stands just **after** \"missing\", and the same start learns to "
        "look the other way.",
        fact="The weights of section 6 point so neatly at the item that they look programmed. Nothing in the code "
             "names \"missing\" or \"charger\": the demonstration below trains the same code on tickets read "
             "backwards, and the head learns to look the other way.",
        myth="The same code learns the mirrored rule from mirrored data (demonstration below): the relation came "
             "from the data.",
        demo="nb06-myth-told-code"),
    _claim(
        "06-uniform", "A model with uniform attention learns nothing.", "myth", "Myth",
        "The control of section 7 scores about one half, not one third: averaging still carries *which* words occur. "
        "What it cannot carry is which word stands where.",
        fact="Uniform attention ignores the query, so it seems useless. But an average still carries which words "
             "occur: the control of section 7 scores about one half, above the one third of guessing. What it cannot "
             "carry is which word stands where.",
        myth="The control of section 7 beats guessing (about one half, not one third) from which words occur; it "
             "misses where they stand."),
    _claim(
        "06-gradcheck", "A gradient check proves the model is right.", "myth", "Myth",
        "It proves the gradients match the loss that the code computes (section 4). A bug in the forward pass, a "
        "wrong label, or a leak from the answer would pass it unchanged.",
        fact="A passing check is reassuring, and it does prove something: the hand-written gradients match the "
             "code's loss (section 4). It says nothing about whether that loss, the forward pass or the labels are "
             "right: a bug there is differentiated faithfully, and passes.",
        myth="It checks the gradients against the code's own loss (section 4), bugs in that loss included."),
    _claim(
        "06-softmax-grad", "The softmax gradient is $w(1 - w)$.", "myth", "Myth: it is only the diagonal",
        "Every score moves every weight (section 3), and the missing $-w_i w_j$ terms are what Exercise 1's "
        "subtraction adds.",
        fact="$w_i(1 - w_i)$ is right for $\\partial w_i / \\partial s_i$, the formula shown first for the sigmoid "
             "and in many texts. But raising one score lowers every other weight: $\\partial w_j / \\partial s_i = "
             "-w_i w_j$. Section 3 builds the whole Jacobian $\\mathrm{diag}(w) - ww^\\top$.",
        myth="$w(1 - w)$ is only the diagonal of $\\mathrm{diag}(w) - ww^\\top$ (section 3)."),
    # -- 07 · Attention at scale -------------------------------------------------------------------------------------
    _claim(
        "07-approximation", "Blockwise (flash) attention is an approximation of attention.", "myth", "Myth",
        "It is exact. The rescaling by $e^{m_{\\text{old}} - m_{\\text{new}}}$ is an identity, not an estimate; the "
        "only differences are floating-point rounding, far below anything a model can notice.",
        fact="It computes each softmax piece by piece, never seeing a whole row at once, which sounds like an "
             "estimate. But each rescaling by $e^{m_{\\text{old}} - m_{\\text{new}}}$ corrects the earlier blocks "
             "exactly (section 2): the demonstration below agrees with full attention to better than $10^{-12}$.",
        myth="The rescaling is an identity (section 2); only the rounding differs (demonstration below).",
        demo="nb07-myth-exact-demo"),
    _claim(
        "07-whole-row", "A stable softmax must see the whole row first, to know its maximum.", "myth", "Myth",
        "Any shift works, as long as every term uses the same one; the online softmax corrects an early, too-small "
        "shift later. Feed the blocks in any order (here reversed, so the maximum comes early instead of late): the "
        "same output.",
        fact="Notebook 01 subtracts the row's maximum, so the maximum looks required. Any common shift gives the "
             "same weights (it cancels); the maximum only guards against overflow, and the online softmax fixes an "
             "early, too-small shift by rescaling when a larger score arrives (section 2). The demonstration below "
             "feeds the blocks in reverse: the same output.",
        myth="Any common shift cancels, and a running maximum is corrected as it grows (section 2; demonstration "
             "below).",
        demo="nb07-myth-order-demo"),
)

_BY_KEY = {claim.key: claim for claim in CLAIMS}


def by_key(key: str) -> Claim:
    """The claim stored under ``key`` (``"01-best-key"``).

    Raises
    ------
    KeyError
        For a key that is not in the table; the message lists the keys of the same notebook.
    """
    try:
        return _BY_KEY[key]
    except (KeyError, TypeError):
        same = [k for k in _BY_KEY if isinstance(key, str) and k[:2] == key[:2]] or list(_BY_KEY)
        raise KeyError(f"key must name a claim of course_utils.lessons.myths, such as {same[0]!r}; got {key!r} "
                       f"(keys of that notebook: {same})") from None


def claims_of(notebook: str) -> list[Claim]:
    """The claims of one notebook (``"03"``, or a stem such as ``"03-masks"``), in the order they are asked."""
    return [claim for claim in CLAIMS if claim.notebook == str(notebook)[:2]]


def verdict_markdown(key: str) -> str:
    """The markdown cell that follows a claim's widget: the claim, its verdict and the feedback, folded away.

    A page without a running notebook shows the fold closed; opening it gives the verdict, why, and what each
    choice probably meant. The claim stands inside as ``**"..."**``, which is how the notebooks' claims are found.
    """
    claim = by_key(key)
    other = next(choice for choice, _ in ANSWERS if choice != claim.answer)
    after = f" {DEMO_NOTE}" if claim.demo else ""
    quoted = f"**\"{claim.claim}\"**".replace(" ", _NO_BREAK)  # on one line: how the notebooks' claims are found
    paragraphs = [f"{quoted} **{claim.ruling}.** {claim.explanation}{after}",
                  f"*If you chose {claim.label(other)}:* {claim.feedback[other]}",
                  f"*If you chose {claim.label(claim.answer)}:* {claim.feedback[claim.answer]}"]
    body = "\n\n".join(_wrap(paragraph) for paragraph in paragraphs)
    return f"<details><summary>Verdict (choose first)</summary>\n\n{body}\n</details>"


def _wrap(paragraph: str) -> str:
    """A paragraph wrapped at ``WIDTH``, never inside ``$...$`` (inline maths stays on one line) nor where
    ``_NO_BREAK`` stands for a space."""
    kept = _MATH.sub(lambda m: m.group(0).replace(" ", _NO_BREAK), paragraph)
    lines = textwrap.wrap(kept, WIDTH, break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines).replace(_NO_BREAK, " ")
