"""The model's scores -> which blocks are main content, with page-level rules on top of the threshold.

The model decides block by block. Things it cannot see that way, each measured on dev (docs/metadata.md,
"Page-level rules on the model's decisions"; docs/model.md, "Page types", for the rules by failure class):

* **A post's body is content.** A block in what a forum engine marks as a post's body (`POST_BODIES`: XenForo
  1's `messageText`) is main, unless it is a signature: the model reads its blockquote as a quote.
* **A label comes with its value.** A description list's short term (`<dt>`: "Collar:") that is main and
  whose short definitions (`<dd>`: "Turn-down collar") are not gets them: they are one line to a reader.
* **Structure is whole.** A table, a list, a figure with its caption or a code block is main or not as a
  unit: half a table is a wrong table. A unit is main when at least `UNIT_SHARE` of its text is in main
  blocks, and then all of it is; else none of it is.
* **A question comes with its answer.** A `<details>` whose answer is main and whose `<summary>` has no
  main block gets its summary.
* **One article per page.** On an article page, a run of main blocks after the article's own, set apart from
  it by boilerplate, that reads as a teaser (mostly links, or a heading over a few lines) is a "read next"
  rail or a second article, not this page's content. So are the article's own last blocks when they are a
  heading over links ("More ... stories") or a label over links ("Related: ..."): after the body, that is
  the end. Pages of other types (forums, listings, products, services, documentation) keep every run:
  there every item is content.
* **Navigation is not content.** A main block inside a `<nav>` or a `<footer>` is dropped (a mega-menu of
  products, a footer's blurb), unless that would leave the page next to nothing: a site that wraps its
  content in one of them still gets it.
* **No heading over nothing.** A heading that ends the page's main content over a list of links the model
  left out heads nothing kept.
* **A signature is its author's, not the thread's.** On a forum page, a block in an element whose class
  names a signature is not content; nor is what repeats around each post outside a poster's card (its
  author's rank, badges, join date, post count: forums.py).
* **A listing's records are whole.** On a listing or collection page, the blocks of one repeated record shape
  (the same tag under ancestors of the same classes, at least `RECORD_MIN_BLOCKS` of them) are the page's
  items: when the model keeps `RECORD_SHARE` of them, it keeps them all (the few it left out read as links).
  A shape of fewer than `RECORD_WORDS` words a block (a strip of scores, of tags) is not a record.
* **A board's statistics are not its content.** On a forum, listing or collection page, a block in an element
  whose class names statistics, who is online or birthdays is a side box of the board, not its topics.
* **A box is not the page.** A block in an element whose class names a cookie or consent banner or a poster's
  card (rank, join date, location), or says the page's own "nocontent", or holds a sign-up, a log-in, a send
  box or a counter, is not content on any page; on a forum, nor is a notice of the board; on a
  product page, nor are the buyers' reviews and the shop's pop-ups (a dialog, a tooltip); on any other page,
  nor is a pop-up (a modal, a dialog, a popover) unless it holds `POPUP_SHARE` of the main text (then it is
  the page's frame); on an article, nor are its readers' comments (a class naming a commentary is the
  article's own): unless that would leave the page next to nothing.
* **A product page is one product.** On a product page (as for its reviews), the content is what sits with its
  headline: the nearest ancestor of the first main <h1> that holds `PRODUCT_REGION_SHARE` of the main words.
  Main blocks outside it (a carousel of other products, the seller's feedback, a site-wide disclaimer) go,
  unless that would leave the page next to nothing.
* **A paragraph is read once.** A main block of running text whose words repeat an earlier main block's is
  dropped: pages write a description twice (a desktop and a mobile panel, a tab and its accordion), and a
  reader or a saved file shows it once.
* **A page with text has main content.** When the model keeps next to nothing but headings, its scores are
  low all over the page, not the content absent: the threshold falls to a share of the best score that a
  block of running text got, and the rules above run again on that.
* **A bare page keeps its list.** When what is kept is a heading and a line (at most `BARE_CHARS`
  characters, under `BARE_SHARE` of the page's) beside a repeated list of short items the model was unsure
  of (a mean score from `BARE_MIN_SCORE` up to the threshold: not what it read as navigation, nor what a
  rule above took out), the page is a listing the model read as chrome (a board of stories, a grid of pots)
  and the list is kept.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from string import ascii_lowercase

from .blocks import HEADINGS as ANY_HEADING
from .blocks import PATH_DEPTH, Block
from .features import CJK_LETTERS
from .forums import post_furniture

# Tags whose subtree is one unit, and the tags that may sit between a unit and a unit nested in it (a list
# in a list item, a table in a cell): the nested one belongs to the outer unit.
UNIT_TAGS = frozenset({"table", "ul", "ol", "dl", "figure", "pre"})
UNIT_INNER = frozenset({"li", "dt", "dd", "tr", "td", "th", "tbody", "thead", "tfoot", "caption", "figcaption"})
# Of a unit's text (characters: word counts mislead in scripts without spaces) in main blocks, for all of it to
# be main: a header row or a column of short numbers alone tells the model little (dev: .25 and .5 within .0004)
UNIT_SHARE = 0.25
# A label and its value (`terms_with_definitions`): a term of at most TERM_WORDS words and TERM_CHARS characters
# ("Outer fabric material:"), its definitions at most DEFINITION_WORDS words together ("100% polyester"); past
# these, a description list is a comment list (the commenter, then the comment) or a list of teasers
DEFINITION_DEPTH = 6  # levels from a block's owner up to the <dt> or <dd> it sits in
TERM_WORDS = 6
TERM_CHARS = 50
DEFINITION_WORDS = 25
UNIT_MAX_BLOCKS = 400  # a list of more blocks is a page's link directory, not a list of the article
TABLE_MAX_BLOCKS = 4000  # a table of short cells only is data up to this many cells (a 41 x 19 comparison
# is 779); past it, a page laid out in cells
# A unit's text sits in its cells, items and captions; a "table" whose text sits in paragraphs, headings or
# divisions is a page laid out with a table (older pages), and a "list" of them is a list of articles.
UNIT_TEXT_OWNERS = frozenset(
    {"td", "th", "li", "dt", "dd", "caption", "figcaption", "pre", "code", "table", "ul", "ol", "dl", "figure"}
)
UNIT_CELL_CHARS = 250  # a cell or item longer than this holds running text: a layout, not a unit

RUN_GAP = 3  # non-main blocks that may sit inside one run of main content
TEASER_LINK_SHARE = 0.3  # of a run's characters inside links: a rail of teasers
TEASER_WORDS = 60  # a run this short that opens with a heading is a teaser
# ... and so is a run of any length none of whose blocks the model scored TEASER_SCORE or more, where the article's
# own run has one that high, unless one of its blocks has the record shape of one of the article's own (its last
# paragraphs after an advert; a thread's posts where the type head called the thread an article): the excerpts of
# "Trending stories" cards under an article, with no heading to tell them by (a travel article's, .33-.57 under a
# body of .94-.97), a site's legal notice, a clinic's testimonials. Two site-grouped CPU folds, all thirteen
# datasets out of fold: +.0010 (+.0007 to +.0012), 147 pages up, 8 down, under 60 words (TEASER_WORDS); of any
# length +.0006 more (+.0004 to +.0008), 53 up, 11 down (golds that keep a reader's comment, an author's bio,
# related stories or comment guidelines); WCXB's recordings +.0003 and +.0005 more, none down (docs/model.md).
# On a page whose own run the model was unsure of (a fallback threshold's) no run is told by it.
TEASER_SCORE = 0.6
# ... unless the model scored that heading at least this: a section of the article itself whose steps or items
# it was unsure of (a tutorial's "Create the headband" over steps scored .1-.4), not a teaser's headline. All
# thirteen datasets out of fold: +.0001 (+.0000 to +.0003), 3 pages up (a Chinese finance article 0 -> .57, a
# Vogue article .63 -> .76, a manual's tutorial .52 -> .57), none down; at .8 7 up and 3 down (-.05 at most).
TEASER_HEADING_SCORE = 0.9
# ... and so is a run, of any length, with at least this many headings of TITLE_WORDS words or more that are links
# (kept or not) from RUN_GAP blocks before it to its end, none of its blocks of the article's own shapes: cards of
# "Recent posts" under a blog post, each a linked headline the model dropped over an excerpt, an author and a date
# it kept. A listicle's linked item headings share the article's shapes; "Email" and "Print" are no headline.
# Two CPU folds, all thirteen datasets out of fold: +.0002 (+.0001 to +.0004), 18 pages up, none down; WCXB's
# recordings +.0005, 14 up, none down (docs/model.md). Without the shape guard 22 pages down (listicles).
TEASER_TITLES = 2
TITLE_WORDS = 3
LINK_LINE_SHARE = 0.5  # of a block's characters inside links: an item of a list of links
LABEL_WORDS = 4  # "Related:", "See more here:": a label before links, at most this many words
LABEL_LINK_SHARE = 0.8  # of the characters after a label inside links
HEADINGS = frozenset({"h1", "h2", "h3", "h4"})  # a teaser's heading
ONE_ARTICLE_TYPES = (None, "article")  # page types the rule runs on: on dev it cost service pages .014
# A paragraph between two kept ones of its element and shape, where they are at least this share of its
# element's paragraphs (`body_paragraphs`). All thirteen datasets out of fold: +.0002 (+.0001 to +.0003), 30
# pages up, 9 down (Daniel +.0006); filling after the last kept one too: +.0004, but MSV-Chaos -.0005.
BODY_KEPT_SHARE = 0.5

# Elements whose text is never the page's content. <aside> was measured too and is not: its sidebars of
# quotes and notes are in the golds (docs/metadata.md).
NOT_CONTENT = frozenset({"nav", "footer"})
# The same read from the landmark roles a page gives any element (`<div role="navigation">`): a page's menu and its
# footer under the names ARIA gives them. Two CPU folds, with a `role="banner"` read as a <header> and
# `role="main"` and `role="article"` as those elements (PAGE_PARTS): all 7,313 pages +.0000 (+.0000 to +.0001),
# 6 pages up, none down (WCXB +.0003: a listing's "Menu" and filters .39 -> .55, a docs wiki .90 -> .96).
NOT_CONTENT_ROLES = frozenset({"navigation", "contentinfo"})
# A <header> is the page's head inside <main> or <article> (its headline, byline, date), and often a page title
# banner outside them (its heading); outside them and without a heading of any level it is the site's bar: a
# logo, a search box, a version or language picker, menu buttons ("Search or ask Copilot" on a docs site, which
# the model kept at .5 to .8). Two CPU folds, all 7,313 pages out of fold: +.0000 (+.0000 to +.0001), 5 pages up
# by .0001 or more (a docs page .87 -> 1.0), none down by as much; WCXB +.0002. With an <h2> to <h6> inside still
# read as the bar, three Dragnet stories and an MSV-Chaos one lost their headline (-.05 each).
PAGE_PARTS = frozenset({"main", "article"})  # as tags and as roles; the bar as a <header> or role "banner"
# A form the reader fills in is not the page's text: a newsletter's or a mailing list's sign-up, a log-in box, a
# poll, a stock-symbol search, a shop's filters, the boxes for a comment (the model kept a poll's questions at .3
# to .9 and a filter's choices at .2 to .5). A <form> counts where it shows a field (FORM_FIELDS, neither it nor
# an ancestor hidden) and holds no kept block of running text (FORM_TEXT_WORDS reading words or more) and under
# POPUP_SHARE of the kept text: a page wrapped whole in one form (ASP.NET's), the comments of a thread that sits
# each in a form of its own, a search's results with their descriptions, a calculator's guidance, stay. Two CPU
# folds, all 7,313 pages out of fold: +.0002 (+.0001 to +.0003), 74 pages up by more than .001 (a shop's filters
# .63 -> .94, a Russian and a Ukrainian poll .81 -> 1.0 and .90 -> .99, a blog's comment form .62 -> .81), 6
# down, each a gold that keeps the form (a log-in page's labels, a designer shop's newsletter box, a society's
# mailing-list sign-ups; -.06 at most); WCXB's recordings +.0004, 14 up, 2 down. Without the field and
# running-text guards: +.0004, 125 up, but 7 down by up to .54 (a pet shop's search results, an ASP.NET news
# story, a thread's comments, a calculator).
FORM_FIELDS = frozenset({"input", "select", "textarea"})
FORM_TEXT_WORDS = 20
# A button's label is a control, not the page's text: "Load more", "Show filters", a shop's filter chips and sort
# order, "Add to cart", a carousel's arrows. A block inside a <button> of under BUTTON_WORDS reading words goes,
# with the navigation guard, but not one inside a heading nor one whose next block is kept outside any button (the
# accordion and tab patterns: a section's title as a button over its panel), nor a question (an FAQ's). Two CPU
# folds, all 7,313 pages out of fold: +.0001 (+.0000 to +.0001), 33 pages up by more than .001 (a service page
# .81 -> .92, a shop's product .81 -> .86, a collection .78 -> .83), 9 down (golds that keep a shop's filter
# chips, -.07, and a product tour's tab names, -.01; the rest under .006). The elements given role="button" too:
# +.0001, 41 up, 10 down, but they wrap a listing's whole clickable cards (a homes listing's cards went, which
# its gold leaves out); with those and without the two title guards: +.0001, 66 up, 26 down (accordion titles
# of service pages, -.03 each).
BUTTON_WORDS = 8

# A forum post's signature (the class every forum engine gives it: phpBB, vBulletin, XenForo, MyBB, SMF,
# Invision) is its author's, under every post, not the thread's: on WCXB's forum pages (train and dev), 163
# of the 165 blocks in one are not in the gold. Read on the block's owner and its nearest classed ancestor.
SIGNATURE = "signature"
SIGNATURE_LEVELS = 2
SIGNATURE_TYPES = ("forum",)
# A post's body as its forum engine marks it, by a whole class name: XenForo 1 sets each post's text in a
# <blockquote class="messageText">, and the model reads a blockquote as a quote (scores of .05-.25 on the
# posts of a whole thread). Main whatever its score, on every page (a thread the head calls an article too),
# unless it is a signature (XenForo 1 marks those messageText as well). Found by bench.class_words (add side:
# three sites up, none down); two CPU folds, all 7,313 pages: +.0002 (+.0000 to +.0004), 3 pages up, none
# down (WCXB forums +.0032; a German legal forum's thread .13 -> .94).
POST_BODIES = ("messagetext",)

# A listing's record shape: a block's tag and the classes of its nearest RECORD_LEVELS classed ancestors
# (ids aside). WCXB training pages, against no rule: listing +.0006, collection +.0011 (8 pages up, 3 down);
# on forum pages (a thread's posts are records too) it cost .0009, so forums are left out.
RECORD_TYPES = ("listing", "collection")
RECORD_LEVELS = 2
RECORD_MIN_BLOCKS = 5
RECORD_SHARE = 0.75
RECORD_WORDS = 3  # words per block of the shape, on average: a title at least (not a strip of scores)

# A board's side boxes (phpBB's "statistics", "online-list" and "birthday-list"), read on the block's nearest
# SIGNATURE_LEVELS classed ancestors. WCXB training pages, against no rule: forum +.0005.
BOARD_BOXES = ("statistic", "stats", "online", "birthday")
BOARD_BOX_TYPES = ("forum", "listing", "collection")

# Boxes whose class names them as not the page's content, read like SIGNATURE on the block's nearest
# SIGNATURE_LEVELS classed ancestors (dropped unless that leaves next to nothing, as `outside_navigation`).
# Measured on all WCXB pages with out-of-fold models, each word list against none, with WCXB's own page type
# (the shipped model's type head is right on 96% of dev snapshots; docs/model.md, "Page types"):
# * a cookie or consent banner, on every page type, under a class or id of any ancestor (a consent manager nests
#   its panes deep below its box, `_in_consent_box`): on the two nearest classed ancestors 19 pages up, 1 down;
#   at any depth 20 more up, 4 down (forum +.0125); the consent managers that name their box by the vendor
#   alone (iubenda, Didomi, Usercentrics, Complianz, Quantcast, Sourcepoint, Evidon, TrustArc; "truste" only
#   with its separator, not to read "trusted"): all thirteen datasets, 1 page up, none down;
CONSENT_BOXES = (
    *("cookie", "consent", "gdpr", "onetrust", "iubenda", "didomi", "usercentrics", "cmplz", "qc-cmp"),
    *("sp_message", "evidon", "trustarc", "truste-", "truste_"),
)
# ... and a box named by a consent word other than "cookie" is not the page's content whatever the model made of
# it: its blocks are unscored before the decision (`unscored_consent`), so a page whose open consent manager is
# its only confident text falls to the lower threshold and its bare list instead of showing the banner (a recipe
# site's list of 44 recipes under a OneTrust pane of vendors and purposes that held 74% of the page's text: .08
# -> .99). On WCXB's recorded pages those boxes hold 1 gold word of 19,760, on 105 pages (the boxes "cookie"
# alone names, 261 of 7,864: a site's cookie-recipe box), and where unscoring them leaves next to nothing the
# decision stands as before (a page about informed consent whose text sits in a box so named). Two site-grouped
# CPU folds: all thirteen datasets +.0002 (+.0000 to +.0006), 2 pages up, none down; WCXB's live snapshots
# +.0007 (+.0000 to +.0022), 2 up, none down.
CONSENT_ONLY = tuple(word for word in CONSENT_BOXES if word != "cookie")
# * a poster's card (XenForo's userExtras, userTitle and userBanner, phpBB's postprofile, vBulletin's userinfo:
#   rank, join date, message count, location), on every page type (a thread typed as an article keeps them
#   too): forum +.007, 15 pages up, none down;
# * what the page itself marks as no content: Google's search appliance reads class "nocontent", Yahoo's
#   crawler "robots-nocontent" (WordPress's Jetpack puts it on its sharing buttons, Google's developer sites on
#   their navigation); on every page type, at any depth below <body>, a class whose dash- or
#   underscore-separated words include NOCONTENT. Two site-grouped CPU folds, all thirteen datasets out of fold:
#   +.0003 (+.0001 to +.0005), 13 pages up, none down (MSV-Chaos +.0037, Dragnet +.0003, WCXB +.0001).
NOCONTENT = ("nocontent",)
# * a site's widgets read the same way, by a whole word of a class: a sign-up or log-in box and a counter (of
#   shares, comments, views: "share-count"; not "account" nor "countdown"). Beside NOCONTENT, the same folds:
#   +.0001 (+.0000 to +.0003), 18 pages up, 1 down, no dataset lower (listings +.0006, collections +.0004);
#   and a send box (Facebook's "fb-send-to-messenger", a comment or chat box's "send_btn"; found by
#   bench.class_words): +.0002 (+.0001 to +.0003), 13 pages up, none down, on three news sites
WIDGETS = ("signup", "login", "count", "send")
POSTER_CARDS = ("userextras", "usertitle", "userbanner", "postprofile", "userinfo", "user-info")
# * a board's notices (an old browser, an announcement) on a forum page: with the cards, forum +.012, 30 up,
#   none down;
BOARD_NOTICES = ("notice", "warning", "blockstatus")  # blockStatus: "Not open for further replies"
# * the buyers' reviews and the shop's pop-up boxes (a dialog, a tooltip, a lightbox) on a product page, whose
#   golds hold the product's own description and specifications: product +.030, 34 up, 4 down. Testimonials
#   were measured too and are content: shops quote them as their pitch, and service pages lost .006.
# Read four levels up (PRODUCT_ASIDE_LEVELS), a shop's other products too ("related", "recommend", "upsell"):
# products +.0025 (+.0006 to +.0051; 5 up, none down), WCXB's training products +.0006 (3 up), dev unchanged.
PRODUCT_ASIDES = (
    "review",
    "modal",
    "popup",
    "dialog",
    "lightbox",
    "popover",
    "tooltip",
    "related",
    "recommend",
    "upsell",
)
PRODUCT_TYPES = ("product",)
# * a pop-up (a modal, a dialog, a popover: a newsletter's sign-up, a booking form, a site's notice) on the pages
#   that are not products, read at any depth below <body> as the consent box is (a plugin nests its form deep
#   inside: Popup Maker's "popmake", Elementor's "elementor-location-popup"). A pop-up that holds POPUP_SHARE of
#   the main text or more is the page's frame, not a box over it (Drupal's "dialog-off-canvas-main-canvas");
#   each named ancestor is read as a box of its own, so a pop-up inside such a frame still goes. Two
#   site-grouped CPU folds, all thirteen datasets out of fold: +.0007 (+.0005 to +.0010), 66 pages up, 5 down,
#   no dataset lower; WCXB +.0012 (+.0004 to +.0021; collections +.0038, services +.0021, articles +.0009),
#   GoogleTrends +.0054, Daniel +.0011; the shipped model on dev: 4 pages up, none down. Without the share guard
#   and with "lightbox" and "tooltip" too: +.0008, but a New Yorker article .99 -> .00 (its body sits in a
#   "lightboxWrapper") and a Chinese page's table classed "tooltipbg" went; "popup", "popmake" and "popover"
#   alone: +.0004 (30 up, 2 down); the outermost named ancestor alone as the box: 5 pages fewer up.
POPUPS = ("popup", "popmake", "popover", "modal", "dialog")
POPUP_SHARE = 0.5
# * read the same way, on every page, a box of links to the site's related pages: a class with the whole word
#   "related" (split at "-" and "_": "related-posts", "td_block_related", "related_products"; not
#   "relatedStories"), whose teasers the model keeps after an article, a product or a service. Found by
#   bench.class_words (41 sites up, 5 down; the three pages it cost most were a listing and two articles whose
#   whole text sits in such a box, which the share keeps). Two site-grouped CPU folds, all thirteen datasets out
#   of fold: +.0004 (+.0002 to +.0005), 48 pages up, 2 down, no dataset lower (WCXB +.0009: products +.0044,
#   services +.0010, articles +.0010; Daniel +.0003, Dragnet +.0003, GoogleTrends +.0013).
RELATED_BOXES = ("related",)
# * on an article (or a page of no type), its author's bio under it ("author-bio", "bio-box"): without the related
#   box, +.0001 (+.0000 to +.0001), 15 up, 3 down (WCXB articles +.0004, 10 up, none down; Dragnet +.0002); on
#   every page type a biography site's profile, which the type head called a collection, lost .31.
BIO_BOXES = ("bio",)
# * on every page, a sidebar: a class that is the whole name "sidebar" (not "has-sidebar" nor "sidebar-widget",
#   which wrap a forum's or a listing's own text as often as a rail: the word "sidebar" was 35 pages up, 9 down).
#   Found by bench.class_words --whole-names (29 pages up, 3 down, each down a page whose whole text sits in such
#   a box, which the share keeps). Two site-grouped CPU folds, all thirteen datasets out of fold: +.0002 (+.0001
#   to +.0004), 21 pages up on 13 sites, none down (Dragnet +.0005, Daniel +.0004, WCXB articles +.0001).
SIDEBAR_BOXES = ("sidebar",)
# * on every page, a post embedded from a social network, by the whole class name its publisher's markup gives it
#   ("blockquote.twitter-tweet"): in the browser the network's script swaps it for a frame whose text the snapshot
#   does not hold, so the HTML path read text the reader never shows, and most golds leave it out. Found by
#   bench.class_words --whole-names (twitter-tweet 47 pages up, 7 down). Two site-grouped CPU folds, all thirteen
#   datasets out of fold: +.0002 (+.0001 to +.0003), 44 pages up, 5 down (MSV-Chaos +.0012, MSV-Big5 +.0007,
#   Fundus +.0006; CleanPortalEval −.0003, −.0046 to +.0036: one page whose gold keeps its tweets −.11).
EMBED_BOXES = ("twitter-tweet", "instagram-media", "tiktok-embed")
# ... and on a page the type head gives at least this share of being a product, whatever it calls it: on new
# sites the head calls only half of WCXB's products products (collections and services the rest). With 12-epoch
# out-of-fold models: product +.0076 (+.0014 to +.0154; 5 pages up, none down), service −.0009 (1 down), all
# +.0004; at .3 product +.0062, at .4 +.0020; the shipped model on dev: one product page up, no other page changed.
PRODUCT_ASIDE_SHARE = 0.2
# The classed ancestors read for these words (the others read SIGNATURE_LEVELS): a review's text sits under
# classes of its own ("a-row", "review-data"...) a level or two below the one naming it. With 12-epoch
# out-of-fold models, against 2 levels: product +.0148 (+.0064 to +.0249; 12 pages up, none down), service
# −.0001 (1 down), all +.0009; 6 levels: product +.0174 (13 up, 1 down); 12: product +.0207 but collections
# −.0108 (a page-wide wrapper names a modal). Shipped model: WCXB's training products +.0115 (5 up, 1 down), dev
# unchanged.
PRODUCT_ASIDE_LEVELS = 4
# A product page's region: the nearest ancestor of its first main <h1> holding this share of the main words.
# With 12-epoch out-of-fold models on WCXB's pages, against no region: product +.0067 (+.0019 to +.0125; 6 pages
# up, 1 down), collection +.0025 (10 up), all +.0006 (+.0003 to +.0010); at .5 product +.0080 (3 down), at .6
# +.0056 (2 down), at .8 +.0036, at .9 +.0009. Shipped model: WCXB's training products, 13 up, none down; dev: one
# page up, no other page changed.
PRODUCT_REGION_SHARE = 0.7

# Text the page's own structured data states (`Stated`): its description (JSON-LD's, else microdata's) and its
# FAQ's questions and answers. A block that is such a text, or that one holds (STATED_WORDS or more), or that holds
# one (at most twice its words) is kept, whatever its score: a shop's description the model was unsure of, a FAQ
# folded into buttons. It runs last, after the safety net and the bare page's list, so that it adds to the
# decision and moves no threshold, and a text kept already is not added twice. WCXB out of fold (two folds, CPU):
# +.0005 (−.0000 to +.0011; products +.0044, +.0000 to +.0100; collections +.0016), 17 pages up, 12 down, with
# a FAQ's questions read as its items (`metadata.LIST_TYPES`); of the twelve other datasets one page moved (+.005).
STATED_WORDS = 8
STATED_MIN_WORDS = 3  # a question stated whole ("Do you pack for us?") is kept from this many words
DESCRIPTION_TYPES = ("product",)
FAQ_TYPES = ("article", "service", "documentation", "listing", "collection", "product")  # a thread's are its posts
# An FAQ folded into panels of its own elements ("div.faq-item > div.question + div.answer"): in the browser the
# answers are closed, and the model scores them under their questions (a service page's five answers .17-.22 under
# questions .28-.34). A kept question gets its answer back where the FAQ has FAQ_MIN_QUESTIONS questions of one
# shape, each in an element of its own, and the rest of that element is a short answer (ANSWER_MAX_BLOCKS, under
# LINK_LINE_SHARE links): a heading that ends in "?" over a box of teasers ("Similar to: <an article's title>?")
# is no question. Two site-grouped CPU folds, all thirteen datasets out of fold: 4 pages up, none down (WCXB +.0001,
# articles +.0002); WCXB's recordings, as the browser saw them: 3 up, none down (that service page .70 -> .86).
# Without the length guard: a Polish article lost .16; every question of an FAQ whose half is kept, with answers:
# 5 up, 6 down.
FAQ_MIN_QUESTIONS = 3
QUESTION_WORDS = 30
ANSWER_MAX_BLOCKS = 8

# * readers' comments under an article (WordPress's comment list, Disqus's dsq-comment) on an article page; a
#   class naming a commentary or a commentator names the article itself. With 12-epoch out-of-fold models: WCXB
#   +.0005 (5 pages up, 1 down; forum +.0013: a thread the model calls an article keeps posts whose classes
#   name no comment); shipped model, dev +.0017 (8 up, 2 down), Dragnet +.0053: its golds leave comments out
#   but one (R281), which keeps them. A class stating the article's comment status ("commented", "commentable",
#   "comments-open", "has-comments") names the article itself: Kinja's articles, classed "commented", were
#   dropped whole (all thirteen datasets out of fold: MSV-Chaos's SpaceX page .04 -> .99, no other page moved).
READERS_COMMENT = re.compile(
    r"(?<!has-)(?<!has_)(?<!no-)(?<!no_)comment(?!ar|at|ed\b|able|s?[-_]?(?:open|closed|on|off|enabled|disabled)\b)",
    re.I,
)

# A block that says only that something is loading ("Loading...", ten times over a shop's grid whose items its
# script had not filled): furniture on any page. Two site-grouped CPU folds: 1 page up (a collection), none down.
PLACEHOLDER = re.compile(
    r"\s*(?:loading|please wait|wird geladen|chargement|cargando|caricamento)\s*(?:\.\.\.|…|\.)?\s*$", re.I
)

# A notice inside <noscript> that the page needs JavaScript ("Your browser does not seem to support JavaScript...
# you have been placed in read-only mode" over every NodeBB thread): a browser running scripts never shows it,
# and the live path never reads <noscript>, but the HTML path parses it for the text some sites put there
# (docs/snapshot.md). At most NOSCRIPT_NOTICE_WORDS words: Discourse puts its whole thread, posts that name
# JavaScript among them, in one. Two CPU folds, all 7,313 pages out of fold: 12 pages up, none down by more
# than .01 (WCXB forums +.0005; a BBC page's "Please turn on JavaScript" line, in its gold, -.007).
NOSCRIPT_NOTICE = re.compile(
    r"\b(?:enable|enabled|disable|disabled|turn on|activate|support|supports|requires?|without|allow)\b.{0,40}"
    r"\bjavascript\b|\bjavascript\b.{0,40}\b(?:enabled|disabled|required|is off|turned off|is not)\b",
    re.I | re.S,
)
NOSCRIPT_NOTICE_WORDS = 60

# A paywall's scrambled copy of the article: each letter moved one on ("Ejf Gppe.Usvdlt tjoe xjfefs jo Xjuufo/" for
# "Die Food-Trucks sind wieder in Witten.", the WAZ's and its sister papers' `class="obfuscated"`), which the reader
# showed as gibberish. In any language of the Latin alphabet a vowel is about 35-40% of the letters and the letters
# that follow the vowels (b f j p v) under 10%; scrambled, it is the other way round. A block of at least
# SCRAMBLED_MIN_LETTERS letters whose letters are SCRAMBLED_SHARE or more those five, and more of them than vowels by
# SCRAMBLED_MARGIN of its letters, is not content, if it reads as prose: SCRAMBLED_MIN_WORDS words of two letters or
# more, none of them SCRAMBLED_MAX_REPEAT of the words (an archive's "J F M A M J J A S O N D", a "C# jobs, Go jobs,
# Java jobs..." menu and a run of hex ids have those letters too). A "Netflix VPNs, Hulu VPNs..." menu: .24 of them.
SCRAMBLED_MIN_LETTERS = 100
SCRAMBLED_SHARE = 0.3
SCRAMBLED_MARGIN = 0.05
SCRAMBLED_MIN_WORDS = 15
SCRAMBLED_MAX_REPEAT = 0.2

# A block that is only the address of a picture, printed where a shop's template dumps its custom fields
# ("cat_thumb_Bone: https://cdn.../5001.jpg", 88 of them on a T-shirt's page): furniture where a page prints
# IMAGE_URLS_MIN or more, not one example address in a documentation table. Two site-grouped CPU folds: 2 pages
# up (that page .09 -> .25), none down; at any count two documentation pages lost their example.
IMAGE_URL = re.compile(r"\s*(?:https?:)?//\S+?\.(?:jpe?g|png|gif|webp|avif|svg)(?:[?#]\S*)?\s*$", re.I)
IMAGE_URLS_MIN = 3

# A marquee: a block of MARQUEE_MIN_WORDS words or more that repeats one phrase of at most MARQUEE_PHRASE_WORDS
# words, at most MARQUEE_SHARE of its words distinct (bullets and bars aside): what a scrolling banner repeats to
# loop without a seam ("Book Now *Book Now *...", 200 words three times over on a design agency's page). Never
# code. Two CPU folds, all 7,313 pages out of fold: 2 pages up, 1 down (a CleanEval mailing-list archive whose
# gold keeps "by Date by Thread" four times over); WCXB's recordings 2 up, none down. Without the phrase limit
# and the code guard a forum post's log, a table written as text and a docs page's code went too.
MARQUEE_MIN_WORDS = 12
MARQUEE_SHARE = 0.2
MARQUEE_PHRASE_WORDS = 8
MARQUEE_MARKS = "*•|·-–—"

# A repeated block is dropped only from this many characters: short lines ("Reply", a price, a table's "Yes")
# repeat on purpose.
REPEAT_MIN_CHARS = 80

# A hidden copy of the article: a block hidden by markup of COPY_MIN_WORDS words or more, COPY_SHARE of whose
# word trigrams the kept blocks the markup shows hold: the post again as raw Markdown for machines (`<pre hidden>`),
# which the reader, the Markdown and the text would give twice. Two CPU folds, all 7,313 pages out of fold: 4 up
# (a blog .62 -> .95, a Fundus and a DANIEL article), 1 down (an insurer's page whose gold keeps a step written
# twice, -.01). Not for shown blocks: a text the page shows twice is a gold's twice as often as not (72 pages
# down, 50 up).
COPY_MIN_WORDS = 30
COPY_SHARE = 0.8

# The safety net (docs/metadata.md): main blocks holding fewer characters than this, headings aside, is
# "nothing kept"; the threshold then falls to FALLBACK_SHARE of the best score of a block of at least
# RUNNING_TEXT_CHARS characters (shorter blocks are links and labels, whose high scores mean little). Where that
# keeps headings alone (a headline of running length set the bar, above the whole body), it falls again from
# the blocks still left out, up to FALLBACK_ROUNDS times: all thirteen datasets out of fold +.0002 (+.0000 to
# +.0005), 4 pages up (three Russian news pages 0 -> .38-.78), none down; again after a round that kept some
# body too: 1 page more up, 1 down (.58 -> .12).
NEARLY_EMPTY_CHARS = 100
FALLBACK_SHARE = 0.5
RUNNING_TEXT_CHARS = 60
FALLBACK_ROUNDS = 3

# A bare page's list (`bare_page_list`): kept characters at most (counted in characters, so that a CJK page's
# body is not read as a line) and their share of the page's; the list's record shape (RECORD_LEVELS), with a
# class in it (a shape of bare <div>s is any text at all) and none naming readers' comments, of at least
# BARE_MIN_BLOCKS blocks of RECORD_WORDS to BARE_ITEM_WORDS words on average (titles, not replies), whose
# mean score is at least BARE_MIN_SCORE. With 12-epoch out-of-fold models and trees, all thirteen datasets
# (7,313 pages): +.0003 (+.0000 to +.0007), 5 pages up and 1 down (a Daniel newspaper front page, .33 -> .30);
# WCXB listing +.0226 (+.0008 to +.0522): Hacker News' newest and jobs (.20 -> 1.0, .09 -> .88, both typed
# articles), a shop's grid of pots (.37 -> .82), BBC's technology front (.23 -> .30). At a floor of .1, Dragnet
# lost .0007 (short articles whose related headlines joined them); without the class and comment checks, a
# video tutorial's comment thread .48 -> .01; counted in words, a Chinese article's comments joined it.
BARE_CHARS = 900
BARE_SHARE = 0.25
BARE_MIN_BLOCKS = 10
BARE_ITEM_WORDS = 10
BARE_MIN_SCORE = 0.15
# Cards: on the pages the head calls services, listings, documentation or forums (CARD_TYPES), the list may be of
# cards of up to CARD_WORDS words a block on average, a title over a line or two of description with the whole
# card one link, which the model reads as teasers (a certificate catalogue in the browser: its intro kept,
# fourteen cards at .06-.23 left out). The card's other parts come with it: each record shape whose blocks
# alternate with the list's, one each (the titles over the descriptions). On articles such cards are the related
# stories under a short report (a Daniel page .87 -> .47); what the head calls collections includes shops' item
# pages with a carousel of similar items (two such pages .57 -> .19 and .27 -> .14 in the browser). A shape
# repeating one text (under DISTINCT_SHARE of its blocks distinct: "Why you're seeing this ad" under each
# sponsored item) is no list of records.
CARD_WORDS = 120
CARD_TYPES = ("service", "listing", "documentation", "forum")
DISTINCT_SHARE = 0.8


# Who watches the rules at work (`bench.rule_audit`): called with each step's name and the decision after it; a
# step named "threshold" starts the rules over (at a lowered threshold, `fallback_threshold`). None in serving.
RULE_TRACE: ContextVar[Callable[[str, list[bool]], None] | None] = ContextVar("RULE_TRACE", default=None)


def units(snapshot: dict, blocks: Sequence[Block]) -> list[list[int]]:
    """Blocks grouped by the table, list, figure or code block they sit in (blocks outside any: none)."""
    return [ids for _, ids in _units(snapshot, blocks)]


def _units(snapshot: dict, blocks: Sequence[Block]) -> list[tuple[str, list[int]]]:
    """(the unit's tag, its blocks) for each unit of the page."""
    nodes = snapshot["nodes"]
    groups: dict[int, list[int]] = {}
    for b in blocks:
        # A block's tag path holds the very tags _unit_of climbs through (the owner's nearest PATH_DEPTH): most
        # blocks sit in no unit, and are passed over without the climb.
        if UNIT_TAGS.isdisjoint(b.tag_path):
            continue
        unit = _unit_of(nodes, b.owner)
        if unit is not None:
            groups.setdefault(unit, []).append(b.index)
    return [
        (nodes[unit]["tag"], ids)
        for unit, ids in groups.items()
        if _is_content_unit(nodes, blocks, ids, nodes[unit]["tag"])
    ]


def _unit_of(nodes: list[dict], owner: int) -> int | None:
    """The outermost unit element around `owner`, reached through unit elements and their inner tags only."""
    unit = None
    i = owner
    steps = 0
    while i >= 0 and steps < PATH_DEPTH:
        tag = nodes[i]["tag"]
        if tag in UNIT_TAGS:
            unit = i
        elif unit is not None and tag not in UNIT_INNER:
            break
        i = nodes[i]["parent"]
        steps += 1
    return unit


def _is_content_unit(nodes: list[dict], blocks: Sequence[Block], ids: list[int], tag: str) -> bool:
    if len(ids) > (TABLE_MAX_BLOCKS if tag == "table" else UNIT_MAX_BLOCKS):
        return False
    return all(blocks[i].tag_path[-1] in UNIT_TEXT_OWNERS and len(blocks[i].text) <= UNIT_CELL_CHARS for i in ids)


def _words(block: Block) -> int:
    return len(block.text.split())


_CJK_LETTER = re.compile(f"[{CJK_LETTERS}]")


def _reading_words(block: Block) -> int:
    """Words as a reader counts them: each CJK character one, as those scripts put no spaces between words
    (a Chinese article's paragraph is one "word" to a split, less than a slogan of six phrases)."""
    letters = len(_CJK_LETTER.findall(block.text))
    return letters + len(_CJK_LETTER.sub(" ", block.text).split()) if letters else _words(block)


def whole_units(snapshot: dict, blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """Each unit main or not as a whole, by the share of its words in main blocks."""
    out = list(main)
    for tag, ids in _units(snapshot, blocks):
        total = sum(len(blocks[i].text) for i in ids)
        kept = sum(len(blocks[i].text) for i in ids if main[i])
        if tag == "figure" and not kept and _between_main(main, ids[0], ids[-1]):
            kept = total  # a picture in the middle of the article: its caption with it (article.py keeps both)
        if 0 < kept < total or (kept and not all(out[i] for i in ids)):
            keep = kept / total >= UNIT_SHARE
            for i in ids:
                out[i] = keep
    return out


def questions_with_answers(snapshot: dict, blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """A disclosure (`<details>`: an FAQ's question and its answer) whose answer is main and whose question,
    its `<summary>`, is not main at all gets the question back: an answer without it reads as a riddle."""
    nodes = snapshot["nodes"]
    answered: set[int] = set()
    summaries: dict[int, list[int]] = {}
    for b in blocks:
        if "details" not in b.tag_path:
            continue
        i, in_summary = b.owner, False
        while i >= 0 and nodes[i]["tag"] != "details":
            in_summary = in_summary or nodes[i]["tag"] == "summary"
            i = nodes[i]["parent"]
        if i < 0:
            continue
        if in_summary:
            summaries.setdefault(i, []).append(b.index)
        elif main[b.index]:
            answered.add(i)
    out = list(main)
    for details in answered:
        question = summaries.get(details, ())
        if not any(main[j] for j in question):  # a summary partly kept (an API method's declaration) stands
            for j in question:
                out[j] = True
    return out


def answers_to_questions(snapshot: dict, blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` with the answer of each kept question of an FAQ of its own elements (FAQ_MIN_QUESTIONS) where
    none of the answer is kept: an FAQ's questions without their answers tell the reader nothing."""
    nodes = snapshot["nodes"]
    out = list(main)
    for ids in _record_shapes([b for b in blocks if _question(b)]).values():
        found = _faq_items(nodes, blocks, ids) if len(ids) >= FAQ_MIN_QUESTIONS else None
        if found is None:
            continue
        items, faq = found
        for i, item in zip(ids, items):
            if not main[i]:
                continue
            answer = []
            for j in range(i + 1, len(blocks)):  # not a slice: one per kept question would copy the page's blocks
                n = blocks[j].owner
                while n not in (item, faq, -1):
                    n = nodes[n]["parent"]
                if n != item:
                    break
                answer.append(j)
            links = sum(blocks[j].link_chars for j in answer)
            if (
                0 < len(answer) <= ANSWER_MAX_BLOCKS
                and not any(main[j] for j in answer)
                and links <= LINK_LINE_SHARE * sum(len(blocks[j].text) for j in answer)
            ):
                for j in answer:
                    out[j] = True
    return out


def _question(block: Block) -> bool:
    """A short line that asks, and is not a link (a thread's title on a board)."""
    text = block.text.rstrip()
    return text.endswith(("?", "\uff1f")) and len(text.split()) <= QUESTION_WORDS and 2 * block.link_chars < len(text)


def _faq_items(nodes: list[dict], blocks: Sequence[Block], ids: list[int]) -> tuple[list[int], int] | None:
    """The element of each question (`ids`, in page order) that holds it and its answer, a child of the elements'
    nearest common ancestor (the FAQ, returned second); None where two questions share one, or where a question is
    the child itself (a heading among paragraphs: there is no element that bounds its answer)."""
    chains = []
    for i in ids:
        chain, n = [], blocks[i].owner
        while n >= 0:
            chain.append(n)
            n = nodes[n]["parent"]
        chains.append(chain[::-1])
    common = 0
    while all(len(c) > common + 1 for c in chains) and len({c[common] for c in chains}) == 1:
        common += 1
    items = [c[common] for c in chains]
    if len(set(items)) != len(items) or any(c[common] == c[-1] for c in chains):
        return None
    return items, chains[0][common - 1] if common else -1


def terms_with_definitions(snapshot: dict, blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """A label the model kept gets its value back: a description list's term (`<dt>`, a spec's "Collar:") whose
    definitions (`<dd>`, "Turn-down collar") it left out entirely. The short value scores low beside its label,
    and a label alone tells the reader nothing. Only short pairs (TERM_WORDS, DEFINITION_WORDS); the other way
    (a kept value gets its label) cost more pages than it gained: the term of a teaser list is its headline."""
    nodes = snapshot["nodes"]
    lists: dict[int, list[tuple[int, str]]] = {}  # the terms' and definitions' parent -> (block, dt or dd)
    for b in blocks:
        if "dt" not in b.tag_path and "dd" not in b.tag_path:
            continue
        i, steps = b.owner, 0
        while i >= 0 and steps < DEFINITION_DEPTH and nodes[i]["tag"] not in ("dt", "dd"):
            i, steps = nodes[i]["parent"], steps + 1
        if i >= 0 and nodes[i]["tag"] in ("dt", "dd"):  # a <dl>'s, or a <div>'s in a <dl>, or a bare <div>'s
            lists.setdefault(nodes[i]["parent"], []).append((b.index, nodes[i]["tag"]))
    out = list(main)
    for entries in lists.values():
        pairs: list[tuple[list[int], list[int]]] = []  # (terms, definitions): a run of <dt>s, then of <dd>s
        for index, tag in entries:
            if not pairs or (tag == "dt" and pairs[-1][1]):
                pairs.append(([], []))
            pairs[-1][0 if tag == "dt" else 1].append(index)
        for terms, definitions in pairs:
            if (
                any(main[i] for i in terms)
                and definitions
                and not any(main[i] for i in definitions)
                and sum(_words(blocks[i]) for i in terms) <= TERM_WORDS
                and sum(len(blocks[i].text) for i in terms) <= TERM_CHARS
                and sum(_words(blocks[i]) for i in definitions) <= DEFINITION_WORDS
            ):
                for i in definitions:
                    out[i] = True
    return out


def _between_main(main: Sequence[bool], first: int, last: int) -> bool:
    return first > 0 and last + 1 < len(main) and main[first - 1] and main[last + 1]


def runs(main: Sequence[bool], gap: int = RUN_GAP) -> list[list[int]]:
    """Runs of main blocks, a run going on across at most `gap` non-main blocks."""
    out: list[list[int]] = []
    last = None
    for i, m in enumerate(main):
        if not m:
            continue
        if last is not None and i - last - 1 <= gap:
            out[-1].append(i)
        else:
            out.append([i])
        last = i
    return out


def one_article(blocks: Sequence[Block], main: list[bool], scores=None) -> list[bool]:
    """Drop the teaser runs after the article's own run (the run with the most words, `_reading_words`: all
    thirteen datasets out of fold, two Chinese articles from 0 to .65 and .92 that lost to a slogan of spaced
    phrases, 4 pages up, 1 down), and the links that end its own run. With the model's `scores`, a run whose
    heading it scored TEASER_HEADING_SCORE or more is a section of the article, not a teaser (unless it is
    mostly links), and a run it scored under TEASER_SCORE throughout is one, where it was sure of the article's
    own run. A run among the linked headlines of cards (`_titles`) is one, whatever its length."""
    found = runs(main)
    if not found:
        return main
    # one run is the article's own: the words of its blocks (CJK characters one by one) are counted only to choose
    own = found[0] if len(found) == 1 else max(found, key=lambda run: sum(_reading_words(blocks[i]) for i in run))
    out = list(main)
    sure = scores is not None and max(float(scores[i, 0]) for i in own) >= TEASER_SCORE
    own_shapes = {record_shape(blocks[i]) for i in own}
    for run in found:
        if run[0] <= own[-1]:
            continue
        chars = sum(len(blocks[i].text) for i in run)
        linked = sum(blocks[i].link_chars for i in run)
        words = sum(_words(blocks[i]) for i in run)
        heading = (
            blocks[run[0]].tag_path[-1:]
            and blocks[run[0]].tag_path[-1] in HEADINGS
            and (scores is None or float(scores[run[0], 0]) < TEASER_HEADING_SCORE)
        )
        foreign = not any(record_shape(blocks[i]) in own_shapes for i in run)
        unsure = sure and foreign and max(float(scores[i, 0]) for i in run) < TEASER_SCORE
        titled = foreign and _titles(blocks, max(own[-1] + 1, run[0] - RUN_GAP), run[-1]) >= TEASER_TITLES
        if titled or unsure or linked >= TEASER_LINK_SHARE * chars or (heading and words < TEASER_WORDS):
            for i in run:
                out[i] = False
    for i in _link_list_tail(blocks, own):
        out[i] = False
    return out


def _titles(blocks: Sequence[Block], first: int, last: int) -> int:
    """Headlines that are links among blocks `first` to `last`: the titles of cards pointing elsewhere."""
    return sum(1 for b in blocks[first : last + 1] if _is_heading(b) and _linked(b) and _words(b) >= TITLE_WORDS)


def body_paragraphs(snapshot: dict, blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` with the holes in the article's body filled: a paragraph the model left out between two it kept,
    of their shape and in their element, where the kept ones are most of that element's paragraphs (not a
    thread of readers' comments, of which the model kept two), and not mostly links."""
    nodes = snapshot["nodes"]
    groups: dict[tuple, list[int]] = {}
    for b in blocks:
        if b.tag_path[-1:] == ["p"] and b.owner >= 0:
            groups.setdefault((nodes[b.owner]["parent"], record_shape(b)), []).append(b.index)
    out = list(main)
    for ids in groups.values():
        kept = [i for i in ids if main[i]]
        if len(kept) < 2 or len(kept) < BODY_KEPT_SHARE * len(ids) or _readers_comment(blocks[ids[0]]):
            continue
        for i in ids:
            if kept[0] < i < kept[-1] and blocks[i].link_chars < LINK_LINE_SHARE * len(blocks[i].text):
                out[i] = True
    return out


def _linked(block: Block) -> bool:
    """A short block that is mostly a link: an item of a list of links."""
    return block.link_chars >= LINK_LINE_SHARE * len(block.text) and _words(block) < TEASER_WORDS


def _labelled_links(block: Block) -> bool:
    """A short label and links: "Related: <a>...</a>", "Tags: <a>...</a>, <a>...</a>"."""
    label, colon, rest = block.text.partition(":")
    return (
        bool(colon)
        and 0 < len(label.split()) <= LABEL_WORDS
        and _words(block) < TEASER_WORDS
        and bool(rest.strip())
        and block.link_chars >= LABEL_LINK_SHARE * len(rest)
    )


def _link_list(block: Block) -> bool:
    """Links as a list: list items, or a run of links the segmenter combined (a menu, a "more" box)."""
    return _linked(block) and (block.merged > 1 or "li" in block.tag_path[-2:])


def _link_list_tail(blocks: Sequence[Block], own: list[int]) -> list[int]:
    """The end of the article, read back from its own run's end: a heading over links (the links with it,
    where they are main), and a label over links. Links alone are left: a series' list of parts is content."""
    tail: list[int] = []
    links: list[int] = []
    for i in reversed(own[1:]):
        b = blocks[i]
        if (_is_heading(b) and i + 1 < len(blocks) and _link_list(blocks[i + 1])) or _labelled_links(b):
            tail += links + [i]
            links = []
        elif _linked(b):
            links.append(i)
        else:
            break
    return tail


def main_blocks(
    snapshot: dict,
    blocks: Sequence[Block],
    scores,
    threshold: float,
    page_type: str | None = None,
    product_share: float = 0.0,
    stated: Stated | None = None,
) -> list[bool]:
    """The model's decision at `threshold`, then whole units, then one article (on article pages and pages
    of unknown type); again at a lower threshold when that keeps next to nothing (`fallback_threshold`);
    then a bare page's list (`bare_page_list`). All of it on the scores with a consent manager's box unscored
    first (`unscored_consent`), unless that keeps next to nothing.
    `product_share`: the type head's probability that the page is a product (`PRODUCT_ASIDE_SHARE`)."""
    unscored = unscored_consent(blocks, scores)
    if unscored is not scores:
        main = _threshold_rounds(snapshot, blocks, unscored, threshold, page_type, product_share, stated)
        if _main_chars(blocks, main) >= NEARLY_EMPTY_CHARS:
            return main
    return _threshold_rounds(snapshot, blocks, scores, threshold, page_type, product_share, stated)


def _threshold_rounds(
    snapshot: dict,
    blocks: Sequence[Block],
    scores,
    threshold: float,
    page_type: str | None,
    product_share: float,
    stated: Stated | None,
) -> list[bool]:
    """`main_blocks` on one set of scores."""
    main = _decide(snapshot, blocks, scores, threshold, page_type, product_share)
    at, lower = threshold, fallback_threshold(blocks, scores, main, threshold)
    for _ in range(FALLBACK_ROUNDS):
        if lower is None:
            break
        main = _decide(snapshot, blocks, scores, lower, page_type, product_share)
        at, lower = lower, fallback_threshold(blocks, scores, main, lower, below=lower)
    main = _traced("bare_page_list", bare_page_list(blocks, scores, main, at, page_type))
    if stated is not None:
        texts = [stated.description] if stated.description and page_type in DESCRIPTION_TYPES else []
        texts += stated.faq if page_type in FAQ_TYPES else ()
        main = _traced("stated_text", stated_text(blocks, main, texts))
    return main


def unscored_consent(blocks: Sequence[Block], scores):
    """`scores` with the main score of each block in a box a CONSENT_ONLY word names set to 0 (a copy), or
    `scores` itself where no block is in one."""
    boxed = [b.index for b in blocks if any(_consent_entry(entry, CONSENT_ONLY) for entry in b.class_path)]
    if not boxed:
        return scores
    unscored = scores.copy()
    unscored[boxed, 0] = 0.0
    return unscored


def _traced(step: str, main: list[bool]) -> list[bool]:
    """`main`, shown to RULE_TRACE's tracer (where one is set) as the decision after `step`."""
    tracer = RULE_TRACE.get()
    if tracer is not None:
        tracer(step, main)
    return main


def bare_page_list(
    blocks: Sequence[Block], scores, main: list[bool], threshold: float, page_type: str | None = None
) -> list[bool]:
    """`main` with the blocks of one record shape added where it keeps at most BARE_CHARS characters, under
    BARE_SHARE of the page's: the shape (classed, no readers' comments, BARE_MIN_BLOCKS or more blocks of
    RECORD_WORDS to BARE_ITEM_WORDS words on average, or CARD_WORDS on CARD_TYPES pages, of distinct texts) whose
    mean score is the highest from BARE_MIN_SCORE up to `threshold` (the one the decision was made at), so one
    the model was unsure of and no rule took out. A list of cards brings the shapes that alternate with it."""
    page = sum(len(b.text) for b in blocks)
    kept = _main_chars(blocks, main)
    if not page or kept > BARE_CHARS or kept >= BARE_SHARE * page:
        return main
    most = CARD_WORDS if page_type in CARD_TYPES else BARE_ITEM_WORDS
    shapes = _record_shapes(blocks, skip=_in_consent_box)
    best: list[int] = []
    best_score, best_words = BARE_MIN_SCORE, 0
    for shape, ids in shapes.items():
        words = sum(_words(blocks[i]) for i in ids)
        if (
            len(ids) < BARE_MIN_BLOCKS
            or not RECORD_WORDS * len(ids) <= words <= most * len(ids)
            or not _distinct(blocks, ids)
            or not any("." in entry for entry in shape[1:])
            or any(READERS_COMMENT.search(entry) for entry in blocks[ids[0]].class_path)
        ):
            continue
        mean = sum(float(scores[i, 0]) for i in ids) / len(ids)
        if best_score <= mean < threshold:
            best, best_score, best_words = ids, mean, words
    added = list(best)
    if best and best_words > BARE_ITEM_WORDS * len(best):  # cards: their other parts
        for ids in shapes.values():
            if ids is not best and abs(len(ids) - len(best)) <= 1 and _alternate(ids, best) and _distinct(blocks, ids):
                added += ids
    out = list(main)
    for i in added:
        out[i] = True
    return out


def _noscript_notice(block: Block) -> bool:
    """A short block inside <noscript> that says the page needs JavaScript (NOSCRIPT_NOTICE)."""
    return (
        "noscript" in block.tag_path
        and len(block.text.split()) <= NOSCRIPT_NOTICE_WORDS
        and NOSCRIPT_NOTICE.search(block.text) is not None
    )


def _scrambled(text: str) -> bool:
    """Whether a block reads as prose moved one letter on (SCRAMBLED_MIN_LETTERS, SCRAMBLED_SHARE,
    SCRAMBLED_MARGIN, SCRAMBLED_MIN_WORDS, SCRAMBLED_MAX_REPEAT)."""
    if len(text) < SCRAMBLED_MIN_LETTERS:
        return False
    low = text.lower()
    letters = sum(map(low.count, ascii_lowercase))
    if letters < SCRAMBLED_MIN_LETTERS:
        return False
    moved = sum(map(low.count, "bfjpv"))
    if moved < SCRAMBLED_SHARE * letters or moved < sum(map(low.count, "aeiou")) + SCRAMBLED_MARGIN * letters:
        return False
    words = _LATIN_WORD.findall(low)
    return len(words) >= SCRAMBLED_MIN_WORDS and max(Counter(words).values()) <= SCRAMBLED_MAX_REPEAT * len(words)


_LATIN_WORD = re.compile(r"[a-z]{2,}")


def not_image_urls(blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` less the blocks that print a picture's address, where the page prints IMAGE_URLS_MIN or more."""
    printed = [bool(IMAGE_URL.match(b.text)) for b in blocks]
    if sum(printed) < IMAGE_URLS_MIN:
        return main
    return [m and not p for m, p in zip(main, printed)]


def not_marquees(blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` less the marquees (`_marquee`), unless that leaves next to nothing (a page of one repeated word)."""
    out = [m and not _marquee(b) for b, m in zip(blocks, main)]
    return _unless_empty(blocks, main, out)


def _marquee(block: Block) -> bool:
    """Whether the block repeats one phrase of at most MARQUEE_PHRASE_WORDS words over and over (MARQUEE_MIN_WORDS,
    MARQUEE_SHARE); never code, whose zeros and brackets repeat on purpose."""
    words = block.text.split()
    if len(words) < MARQUEE_MIN_WORDS or {"pre", "code"} & set(block.tag_path):
        return False
    distinct = {w.strip(MARQUEE_MARKS).casefold() for w in words}
    return len(distinct) <= min(MARQUEE_PHRASE_WORDS, MARQUEE_SHARE * len(words))


def _distinct(blocks: Sequence[Block], ids: Sequence[int]) -> bool:
    """Whether the blocks hold DISTINCT_SHARE or more texts of their own: records, not one notice repeated."""
    return len({blocks[i].text for i in ids}) >= DISTINCT_SHARE * len(ids)


def _alternate(a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether the blocks of two shapes alternate in page order, one of each: a card's title and description."""
    marks = sorted([(i, 0) for i in a] + [(i, 1) for i in b])
    return all(x[1] != y[1] for x, y in pairwise(marks))


def fallback_threshold(
    blocks: Sequence[Block], scores, main: Sequence[bool], threshold: float, below: float | None = None
) -> float | None:
    """The lower threshold for a page whose main blocks hold under NEARLY_EMPTY_CHARS characters besides
    headings, or None where the decision stands (or no block of running text could lower it). `below`: read
    only the blocks scored under it (a round after the first, where the one before kept headings alone: those
    its threshold still left out)."""
    body = _body_chars(blocks, main)
    if body >= NEARLY_EMPTY_CHARS or (below is not None and body):
        return None
    running = [float(scores[b.index, 0]) for b in blocks if len(b.text) >= RUNNING_TEXT_CHARS]
    if below is not None:
        running = [s for s in running if s < below]
    lower = FALLBACK_SHARE * max(running, default=0.0)
    return lower if 0 < lower < threshold else None


def _decide(
    snapshot: dict, blocks: Sequence[Block], scores, threshold: float, page_type: str | None, product_share: float
) -> list[bool]:
    main = _traced("threshold", [bool(s) for s in scores[:, 0] >= threshold] if len(blocks) else [])
    main = _traced("terms_with_definitions", terms_with_definitions(snapshot, blocks, main))
    main = _traced("post_bodies", [m or _post_body(b) for b, m in zip(blocks, main)])
    main = _traced("whole_units", whole_units(snapshot, blocks, main))
    main = _traced("questions_with_answers", questions_with_answers(snapshot, blocks, main))
    if page_type in FAQ_TYPES:
        main = _traced("answers_to_questions", answers_to_questions(snapshot, blocks, main))
    if page_type in ONE_ARTICLE_TYPES:
        main = _traced("body_paragraphs", body_paragraphs(snapshot, blocks, main))
        main = _traced("one_article", one_article(blocks, main, scores))
    main = _traced("outside_navigation", outside_navigation(snapshot, blocks, main))
    main = _traced("outside_site_header", outside_site_header(snapshot, blocks, main))
    main = _traced("outside_forms", outside_forms(snapshot, blocks, main))
    main = _traced("not_buttons", not_buttons(snapshot, blocks, main))
    if page_type in SIGNATURE_TYPES:
        signed = [m and not _class_names(b, (SIGNATURE,)) for b, m in zip(blocks, main)]
        main = _traced("post_furniture", post_furniture(snapshot, blocks, signed))
    if page_type in BOARD_BOX_TYPES:
        main = _traced("board_boxes", [m and not _class_names(b, BOARD_BOXES) for b, m in zip(blocks, main)])
    if page_type in RECORD_TYPES:
        main = _traced("whole_records", whole_records(blocks, main))
    main = _traced("not_boxes", not_boxes(blocks, main, page_type, product_share))
    if page_type in PRODUCT_TYPES or product_share >= PRODUCT_ASIDE_SHARE:
        main = _traced("one_product", one_product(snapshot, blocks, main))
    main = _traced("scrambled", [m and not _scrambled(b.text) for b, m in zip(blocks, main)])
    main = _traced("no_heading_over_links", no_heading_over_links(blocks, main))
    main = _traced("placeholders", [m and not PLACEHOLDER.match(b.text) for b, m in zip(blocks, main)])
    main = _traced("noscript_notices", [m and not _noscript_notice(b) for b, m in zip(blocks, main)])
    main = _traced("image_urls", not_image_urls(blocks, main))
    main = _traced("marquees", not_marquees(blocks, main))
    main = _traced("read_once", read_once(blocks, main))
    return _traced("not_copies", not_copies(blocks, main))


def _trigrams(text: str) -> list[tuple[str, ...]]:
    words = _WORD.findall(text.casefold())
    return list(zip(words, words[1:], words[2:]))


def not_copies(blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` less each kept block hidden by markup whose text the shown kept blocks already hold (COPY_MIN_WORDS,
    COPY_SHARE): a hidden copy of the article, not a collapsed section of it."""
    hidden = [b for b, m in zip(blocks, main) if m and b.flags.get("hidden")]
    if not hidden:
        return main
    shown = {t for b, m in zip(blocks, main) if m and not b.flags.get("hidden") for t in _trigrams(b.text)}
    out = list(main)
    for b in hidden:
        grams = _trigrams(b.text)
        if len(grams) + 2 >= COPY_MIN_WORDS and sum(g in shown for g in grams) >= COPY_SHARE * len(grams):
            out[b.index] = False
    return out


def read_once(blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` less each block of at least REPEAT_MIN_CHARS characters whose text, spaces and case aside, is an
    earlier main block's."""
    seen: set[str] = set()
    out = list(main)
    for b, m in zip(blocks, main):
        if not m or len(b.text) < REPEAT_MIN_CHARS:
            continue
        key = " ".join(b.text.split()).casefold()
        if key in seen:
            out[b.index] = False
        seen.add(key)
    return out


def _class_names(block: Block, words: tuple[str, ...], levels: int = SIGNATURE_LEVELS) -> bool:
    """Whether a class of the block's owner or of its nearest classed ancestors (`levels` of the class path)
    holds one of `words`."""
    return any(_entry_names(entry, words) for entry in block.class_path[-levels:])


# A page's blocks share their ancestors' entries ("div.post#p12"), so each entry is read once: a few thousand
# blocks under a twenty-deep path read the same strings over and over.
@lru_cache(maxsize=1 << 14)
def _entry_names(entry: str, words: tuple[str, ...]) -> bool:
    """Whether a class in a class-path entry ("tag.class1.class2#id") holds one of `words`."""
    return any(word in name.lower() for name in _entry_classes(entry) for word in words)


def _entry_classes(entry: str) -> list[str]:
    """The class names of a class-path entry ("tag.class1.class2#id")."""
    return entry.split("#", 1)[0].split(".")[1:]


def not_boxes(
    blocks: Sequence[Block], main: list[bool], page_type: str | None, product_share: float = 0.0
) -> list[bool]:
    """`main` less the blocks in a box that is not the page's content (a consent banner, a poster's card; on a
    forum its notices; on a product page, or one that may be (`product_share`), its reviews and pop-ups; on any
    other page its pop-ups; on every page its links to related pages, its sidebar and the posts it embeds from
    social networks; on an article its author's bio and its readers' comments), unless that leaves next to
    nothing."""
    product = page_type in PRODUCT_TYPES or product_share >= PRODUCT_ASIDE_SHARE
    words = POSTER_CARDS + (BOARD_NOTICES if page_type in SIGNATURE_TYPES else ())
    named = NOCONTENT + WIDGETS
    out = [
        m and not _class_names(b, words) and not _in_consent_box(b) and not _in_box_named(b, named)
        for b, m in zip(blocks, main)
    ]
    if product:
        out = [m and not _class_names(b, PRODUCT_ASIDES, PRODUCT_ASIDE_LEVELS) for b, m in zip(blocks, out)]
    if page_type not in PRODUCT_TYPES:  # a page only maybe a product: its pop-ups too, read at any depth
        out = not_small_boxes(blocks, out, _popup_entry)
    out = not_small_boxes(blocks, out, _related_entry)
    out = not_small_boxes(blocks, out, _sidebar_entry)
    out = not_small_boxes(blocks, out, _embed_entry)
    if page_type in ONE_ARTICLE_TYPES:
        out = not_small_boxes(blocks, out, _bio_entry)
    if page_type == "article":
        out = [m and not _readers_comment(b) for b, m in zip(blocks, out)]
    return _unless_empty(blocks, main, out)


def not_small_boxes(blocks: Sequence[Block], main: list[bool], names: Callable[[str], bool]) -> list[bool]:
    """`main` less the blocks of each box (an ancestor below <body> whose class-path entry `names` names: a
    pop-up, POPUPS; related pages, RELATED_BOXES; an author's bio, BIO_BOXES; a sidebar, SIDEBAR_BOXES; an
    embedded post, EMBED_BOXES) that holds under POPUP_SHARE of the main text: one that holds more is what the
    page is or wraps its content in (Drupal's "dialog-off-canvas-main-canvas", a biography site's "bio"), and a
    box of its kind inside it still goes."""
    boxes: dict[tuple[str, ...], list[int]] = {}
    total = 0
    for b, m in zip(blocks, main):
        if m:
            total += len(b.text)
            for k, entry in enumerate(b.class_path):
                if names(entry):
                    boxes.setdefault(tuple(b.class_path[: k + 1]), []).append(b.index)
    out = list(main)
    for ids in boxes.values():
        if sum(len(blocks[i].text) for i in ids) < POPUP_SHARE * total:
            for i in ids:
                out[i] = False
    return out


_CLASS_WORDS = re.compile(r"[-_]+")


def _in_box_named(block: Block, words: tuple[str, ...]) -> bool:
    """Whether an ancestor below <body> has a class one of whose dash- or underscore-separated words is in
    `words` (NOCONTENT, WIDGETS), at any depth."""
    return any(_entry_has_word(entry, words) for entry in block.class_path)


@lru_cache(maxsize=1 << 14)
def _entry_has_word(entry: str, words: tuple[str, ...]) -> bool:
    return _below_body(entry) and any(
        w in words for name in _entry_classes(entry) for w in _CLASS_WORDS.split(name.lower())
    )


def _post_body(block: Block) -> bool:
    """Whether the block sits in a post's body as its forum engine marks it (POST_BODIES), not in a signature."""
    marks = [_post_marks(entry) for entry in block.class_path]
    return any(body for body, _ in marks) and not any(signed for _, signed in marks)


@lru_cache(maxsize=1 << 14)
def _post_marks(entry: str) -> tuple[bool, bool]:
    """(names a post's body, names a signature) for one class-path entry below <body>."""
    if not _below_body(entry):
        return False, False
    return _entry_is_named(entry, POST_BODIES), _entry_names(entry, (SIGNATURE,))


def _popup_entry(entry: str) -> bool:
    """Whether one class-path entry below <body> names a pop-up by a class (`not_small_boxes`)."""
    return _below_body(entry) and _entry_names(entry, POPUPS)


def _related_entry(entry: str) -> bool:
    return _entry_has_word(entry, RELATED_BOXES)


def _bio_entry(entry: str) -> bool:
    return _entry_has_word(entry, BIO_BOXES)


def _sidebar_entry(entry: str) -> bool:
    return _entry_is_named(entry, SIDEBAR_BOXES)


def _embed_entry(entry: str) -> bool:
    return _entry_is_named(entry, EMBED_BOXES)


@lru_cache(maxsize=1 << 14)
def _entry_is_named(entry: str, names: tuple[str, ...]) -> bool:
    """Whether one class-path entry below <body> has a class that is one of `names` whole."""
    return _below_body(entry) and any(name.lower() in names for name in _entry_classes(entry))


def one_product(snapshot: dict, blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` less the blocks outside the product's region: the nearest ancestor of the first main <h1> that
    holds PRODUCT_REGION_SHARE of the main words (the page itself where none does), unless that leaves next to
    nothing. A page with no main <h1> is left as it is."""
    head = next((b for b in blocks if main[b.index] and b.tag_path[-1:] == ["h1"]), None)
    if head is None:
        return main
    nodes = snapshot["nodes"]
    chain: dict[int, int] = {}  # the headline's element and its ancestors -> how many levels up from it
    i = head.owner
    while i >= 0:
        chain[i] = len(chain)
        i = nodes[i]["parent"]
    level: dict[int, int] = {}  # element -> the level of the nearest ancestor of it that is on the chain

    def level_of(i: int) -> int:
        path = []
        while i not in chain and i not in level and i >= 0:
            path.append(i)
            i = nodes[i]["parent"]
        found = chain[i] if i in chain else level.get(i, len(chain))
        for j in path:
            level[j] = found
        return found

    levels = [level_of(b.owner) for b in blocks]
    under = [0] * (len(chain) + 1)
    for b, m in zip(blocks, main):
        if m:
            under[levels[b.index]] += _words(b)
    need, held, region = PRODUCT_REGION_SHARE * sum(under), 0, len(chain)
    for k, words in enumerate(under):
        held += words
        if held >= need:
            region = k
            break
    out = [m and levels[b.index] <= region for b, m in zip(blocks, main)]
    return _unless_empty(blocks, main, out)


_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Stated:
    """Text the page's structured data states as its own (`metadata.read_stated`)."""

    description: str | None = None
    faq: tuple[str, ...] = ()  # each question and each answer


def _said(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


def stated_text(blocks: Sequence[Block], main: list[bool], texts: Sequence[str]) -> list[bool]:
    """`main` with the blocks that are one of `texts`, or are held in one, or hold one (at most twice its words),
    words and case aside, unless a block of the same text is kept already."""
    said = [t for t in map(_said, texts) if len(t.split()) >= STATED_MIN_WORDS]
    if not said:
        return main
    out = list(main)
    seen = {_said(b.text) for b in blocks if main[b.index]}
    for b in blocks:
        if main[b.index]:
            continue
        text = _said(b.text)
        words = len(text.split())
        if words < STATED_MIN_WORDS or text in seen:
            continue
        if any(
            text == t or (words >= STATED_WORDS and (text in t or (t in text and words <= 2 * len(t.split()))))
            for t in said
        ):
            out[b.index] = True
            seen.add(text)
    return out


def _readers_comment(block: Block) -> bool:
    """Whether a class of the block's owner or of its nearest classed ancestor names a readers' comment."""
    return any(map(_comment_entry, block.class_path[-SIGNATURE_LEVELS:]))


@lru_cache(maxsize=1 << 14)
def _comment_entry(entry: str) -> bool:
    return any(map(READERS_COMMENT.search, _entry_classes(entry)))


def _in_consent_box(block: Block) -> bool:
    """Whether a class or id of one of the block's ancestors below <body> names a consent box: the box may sit
    deep (a consent manager's panes), and an id names it ("cookie-notice", "onetrust-banner-sdk") unless the id
    is the word alone, an anchor to a section on cookies."""
    return any(_consent_entry(entry, CONSENT_BOXES) for entry in block.class_path)


@lru_cache(maxsize=1 << 14)
def _consent_entry(entry: str, words: tuple[str, ...]) -> bool:
    """Whether one class-path entry below <body> names a consent box by a class or by an id with one of `words`
    (CONSENT_BOXES, CONSENT_ONLY: `_in_consent_box`)."""
    if not _below_body(entry):
        return False
    head, _, id_ = entry.lower().partition("#")
    classes = head.split(".")[1:]
    return any(any(word in name for name in classes) or (word in id_ and id_.rstrip("s") != word) for word in words)


def _below_body(entry: str) -> bool:
    """Whether a class-path entry is an element below <body>: the page's <html> and <body> carry page-wide
    classes ("modal-open", a theme's name), which name no box."""
    return entry.partition(".")[0].partition("#")[0].lower() not in ("html", "body")


def record_shape(block: Block) -> tuple[str, ...]:
    """The block's tag and the classes (ids aside) of its nearest RECORD_LEVELS classed ancestors: the blocks of
    one shape on a page are the items of one record list, or the bodies of a thread's posts."""
    return (*block.tag_path[-1:], *(entry.split("#", 1)[0] for entry in block.class_path[-RECORD_LEVELS:]))


def _record_shapes(blocks: Sequence[Block], skip: Callable[[Block], bool] | None = None) -> dict[tuple, list[int]]:
    """The indices of the blocks of each record shape, in page order, of the blocks with a tag and a classed
    ancestor that `skip` (where given) does not name."""
    shapes: dict[tuple, list[int]] = {}
    for b in blocks:
        if b.class_path and b.tag_path and not (skip is not None and skip(b)):
            shapes.setdefault(record_shape(b), []).append(b.index)
    return shapes


def whole_records(blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` with every block of a repeated record shape main where at least RECORD_SHARE of them are."""
    out = list(main)
    for ids in _record_shapes(blocks).values():
        if (
            len(ids) >= RECORD_MIN_BLOCKS
            and sum(main[i] for i in ids) >= RECORD_SHARE * len(ids)
            and sum(_words(blocks[i]) for i in ids) >= RECORD_WORDS * len(ids)
        ):
            for i in ids:
                out[i] = True
    return out


def no_heading_over_links(blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` less the headings that end the page's main content over a list of links the model left out
    ("You may also like" over products, "More stories" over links), or over a paywall's scrambled copy of the
    article (`_scrambled`, which the step before takes out): they head nothing that is kept."""
    out = list(main)
    kept = [i for i, m in enumerate(main) if m]
    for i in reversed(kept[1:]):
        under = blocks[i + 1] if i + 1 < len(blocks) else None
        if not (
            _is_heading(blocks[i])
            and under is not None
            and ((not main[i + 1] and _link_list(under)) or _scrambled(under.text))
        ):
            break
        out[i] = False
    return out


def _is_heading(block: Block) -> bool:
    return bool(block.tag_path) and block.tag_path[-1] in ANY_HEADING


def outside_navigation(snapshot: dict, blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` less the blocks inside a NOT_CONTENT element (or role), unless that leaves next to nothing."""
    nodes = snapshot["nodes"]
    return _outside(
        blocks, main, _within(nodes, lambda j: nodes[j]["tag"] in NOT_CONTENT or _role(nodes[j]) in NOT_CONTENT_ROLES)
    )


def outside_site_header(snapshot: dict, blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` less the blocks inside the site's bar (`_site_headers`), unless that leaves next to nothing."""
    bars = _site_headers(snapshot["nodes"])
    return _outside(blocks, main, _within(snapshot["nodes"], bars.__contains__)) if bars else main


def outside_forms(snapshot: dict, blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` less the blocks inside a form the reader fills in (`_filled_forms`), unless that leaves next to
    nothing."""
    nodes = snapshot["nodes"]
    forms = _filled_forms(nodes, blocks, main)
    return _outside(blocks, main, _within(nodes, forms.__contains__)) if forms else main


def _filled_forms(nodes: list[dict], blocks: Sequence[Block], main: Sequence[bool]) -> set[int]:
    """The <form> elements that show a field (FORM_FIELDS, neither it nor an ancestor hidden) and hold no kept
    block of running text (FORM_TEXT_WORDS) and under POPUP_SHARE of the kept text."""
    if not any(node["tag"] == "form" for node in nodes):
        return set()
    form_of = _nearest(nodes, lambda j: nodes[j]["tag"] == "form")
    hidden = _within(nodes, lambda j: bool(nodes[j].get("hidden")))
    shown = {form_of(j) for j, node in enumerate(nodes) if node["tag"] in FORM_FIELDS and not hidden(j)} - {-1}
    if not shown:
        return set()
    chars: dict[int, int] = {}
    running: set[int] = set()
    total = 0
    for b, m in zip(blocks, main):
        if not m:
            continue
        total += len(b.text)
        form = form_of(b.owner)
        if form in shown:
            chars[form] = chars.get(form, 0) + len(b.text)
            if _reading_words(b) >= FORM_TEXT_WORDS:
                running.add(form)
    return {form for form in shown - running if chars.get(form, 0) < POPUP_SHARE * total}


def not_buttons(snapshot: dict, blocks: Sequence[Block], main: list[bool]) -> list[bool]:
    """`main` less the labels of the page's buttons (blocks inside a <button> of under BUTTON_WORDS reading words),
    but not a button that titles what follows it (inside a heading, or before a kept block outside any button:
    an accordion's or a tab's name over its panel) nor a question; unless that leaves next to nothing."""
    nodes = snapshot["nodes"]
    if not any(node["tag"] == "button" for node in nodes):
        return main
    in_button = _within(nodes, lambda j: nodes[j]["tag"] == "button")
    in_heading = _within(nodes, lambda j: nodes[j]["tag"] in ANY_HEADING)

    def label(b: Block) -> bool:
        if not in_button(b.owner) or in_heading(b.owner) or _reading_words(b) >= BUTTON_WORDS or _question(b):
            return False
        after = b.index + 1
        return not (after < len(blocks) and main[after] and not in_button(blocks[after].owner))

    return _unless_empty(blocks, main, [m and not label(b) for b, m in zip(blocks, main)])


def _site_headers(nodes: list[dict]) -> set[int]:
    """The <header> (or "banner") elements outside PAGE_PARTS that hold no heading: the site's bar, not the page's
    head."""
    bars = set()
    in_page = _within(nodes, lambda j: nodes[j]["tag"] in PAGE_PARTS or _role(nodes[j]) in PAGE_PARTS)
    for i in (i for i, node in enumerate(nodes) if node["tag"] == "header" or _role(node) == "banner"):
        if in_page(i):
            continue
        depth, end = nodes[i]["depth"], i + 1  # ids are document order: the subtree runs while deeper
        while end < len(nodes) and nodes[end]["depth"] > depth and nodes[end]["tag"] not in ANY_HEADING:
            end += 1
        if end == len(nodes) or nodes[end]["depth"] <= depth:
            bars.add(i)
    return bars


def _role(node: dict) -> str | None:
    """An element's landmark role: the first word of its `role`, as browsers read it (case aside)."""
    role = node.get("role")
    return role.split(maxsplit=1)[0].lower() if role and role.strip() else None


def _within(nodes: list[dict], marked: Callable[[int], bool]) -> Callable[[int], bool]:
    """Whether an element is, or sits in, one that `marked` names (`_nearest` finds one)."""
    nearest = _nearest(nodes, marked)
    return lambda i: nearest(i) >= 0


def _nearest(nodes: list[dict], marked: Callable[[int], bool]) -> Callable[[int], int]:
    """The element itself or its nearest ancestor that `marked` names (-1 for none); each ancestor is read once a
    page."""
    found: dict[int, int] = {-1: -1}

    def nearest(i: int) -> int:
        path = []
        while i not in found:
            if marked(i):
                found[i] = i
                break
            path.append(i)
            i = nodes[i]["parent"]
        for j in path:
            found[j] = found[i]
        return found[i]

    return nearest


def _outside(blocks: Sequence[Block], main: list[bool], within: Callable[[int], bool]) -> list[bool]:
    """`main` less the blocks whose owner is `within`, unless that leaves next to nothing."""
    return _unless_empty(blocks, main, [m and not within(b.owner) for b, m in zip(blocks, main)])


def _unless_empty(blocks: Sequence[Block], main: list[bool], out: list[bool]) -> list[bool]:
    """`out`, a rule's cut of `main`, unless it leaves next to nothing of a page that had text: then `main`."""
    if out == main or _body_chars(blocks, out) < NEARLY_EMPTY_CHARS <= _body_chars(blocks, main):
        return main
    return out


def _main_chars(blocks: Sequence[Block], main: Sequence[bool]) -> int:
    """Characters of the main blocks, headings included."""
    return sum(len(b.text) for b, m in zip(blocks, main) if m)


def _body_chars(blocks: Sequence[Block], main: Sequence[bool]) -> int:
    """Characters of the main blocks besides headings."""
    return sum(len(b.text) for b, m in zip(blocks, main) if m and b.tag_path and b.tag_path[-1] not in ANY_HEADING)
