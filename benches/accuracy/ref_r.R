#!/usr/bin/env Rscript
# Reference call graph of an R package's code, by R's own parser and R's scoping rules.
#
#     Rscript ref_r.R FOLDER --package=NAME > ref.json
#
# Every `.R` file of FOLDER (a package's `R/` folder) is parsed by R (`parse(keep.source =
# TRUE)`, `getParseData`): the tokens R itself reads, with their places. A call is a
# `SYMBOL_FUNCTION_CALL` token, resolved as R looks a function up when it is called, from
# the function the call is written in outwards (lexical scoping):
#
# - a name bound in an enclosing function (a formal argument, a `<-`, `=` or `->` assignment
#   there, a `for` variable) is that binding: a function defined there by `name <-
#   function(...)`, and bound nowhere else in that function, is the callee; any other binding
#   (a parameter, a variable, a name bound several times) is left unresolved (its value is
#   the run time's; R's function lookup would also skip a binding that is not a function);
# - otherwise the name is the package's: the one top-level `name <- function(...)` of the
#   package's files; a name bound at top level to something else, or several times, is left
#   unresolved; a name the package does not bind is external (base R, an import: counted);
# - `NAME::f()` and `NAME:::f()`, NAME the package, are the package's `f`; another package's
#   are external;
# - a call of an object's field (`x$f()`, `self$m()`, `obj@f()`) is left unresolved (which
#   function the field holds is the run time's), and so is a name called through `do.call`,
#   `match.fun` or `Recall`, and a call inside quoted code (`quote()`, `bquote()`,
#   `substitute()`, rlang's `expr()`, `exprs()`, `quo()`, `quos()`, a formula): it runs
#   where and if the code is evaluated.
#
# Defs: every `name <- function(...)` (`=`, `<<-`, `->` too; a string name as well), at any
# depth (the line of the name; its end, the assignment's), and a method of an R6 or
# reference class (`R6Class(public = list(m = function(...) ...))`, `setRefClass(methods =
# list(...))`). A call belongs to the innermost def around it (an anonymous function's calls
# to the def around that), else to the file's top level (`<path>`). codetools'
# `findGlobals`, which R CMD check uses, is run on every top-level function as a check: the
# global function names it finds that the package defines are the ones this resolution
# gives, and a disagreement is printed on stderr. Output: the JSON of ref_python.py.

suppressPackageStartupMessages(library(codetools))

args <- commandArgs(trailingOnly = TRUE)
folder <- NULL
package <- NULL
for (a in args) {
  if (startsWith(a, "--package=")) package <- sub("^--package=", "", a) else folder <- a
}
if (is.null(folder) || is.null(package)) stop("usage: ref_r.R FOLDER --package=NAME")
files <- sort(list.files(folder, pattern = "\\.[Rr]$", recursive = TRUE))

json_str <- function(s) {
  s <- gsub("\\\\", "\\\\\\\\", s)
  s <- gsub("\"", "\\\\\"", s)
  s <- gsub("\n", "\\\\n", s)
  s <- gsub("\t", "\\\\t", s)
  paste0("\"", s, "\"")
}

ASSIGN_LEFT <- c("<-", "=", ":=")
QUOTING <- c("quote", "bquote", "substitute", "expr", "exprs", "quo", "quos", "enquo", "enexpr")
BY_NAME <- c("do.call", "match.fun", "Recall")

defs <- list()          # key -> list(path, name, line, end)
top <- new.env()        # name -> character vector: def keys, or "" for a value binding
parsed <- list()
unresolved <- list()
failed <- character()

# Pass 1: parse, find every def and every scope's bindings.
for (f in files) {
  p <- tryCatch(parse(file.path(folder, f), keep.source = TRUE), error = function(e) NULL)
  if (is.null(p)) {
    failed <- c(failed, f)
    next
  }
  pd <- getParseData(p)
  if (is.null(pd) || nrow(pd) == 0) next
  pd <- pd[order(pd$line1, pd$col1, -pd$line2, -pd$col2), ]
  rownames(pd) <- as.character(pd$id)
  id <- as.character(pd$id)
  parent <- as.character(pd$parent)
  token <- pd$token
  names(token) <- id
  text <- pd$text
  names(text) <- id
  kids <- split(id, factor(parent, levels = unique(parent)))
  kid <- function(x) { k <- kids[[x]]; if (is.null(k)) character() else k }
  is_fn <- function(x) { k <- kid(x); length(k) > 0 && token[[k[1]]] == "FUNCTION" }
  # The innermost function node around each node ("0": none), from the roots down.
  fscope <- setNames(rep("0", length(id)), id)
  roots <- id[!(parent %in% id)]
  stack <- roots
  while (length(stack) > 0) {
    x <- stack[length(stack)]
    stack <- stack[-length(stack)]
    inner <- if (is_fn(x)) x else fscope[[x]]
    for (k in kid(x)) fscope[[k]] <- inner
    stack <- c(stack, kid(x))
  }
  bound <- new.env()    # function node -> env name -> character vector (def keys or "")
  def_of_fn <- new.env()  # function node -> def key
  bind <- function(scope, name, what) {
    if (scope == "0") {
      assign(name, c(get0(name, envir = top, inherits = FALSE), what), envir = top)
    } else {
      e <- get0(scope, envir = bound, inherits = FALSE)
      if (is.null(e)) { e <- new.env(); assign(scope, e, envir = bound) }
      assign(name, c(get0(name, envir = e, inherits = FALSE), what), envir = e)
    }
  }
  single_name <- function(x) {
    k <- kid(x)
    if (length(k) == 1 && token[[k]] %in% c("SYMBOL", "STR_CONST")) {
      t <- text[[k]]
      # (A string or backquoted name: `[.grouped_df` <- function(...), "f" <- function(...).)
      if (token[[k]] == "STR_CONST" || startsWith(t, "`")) t <- substring(t, 2, nchar(t) - 1)
      return(list(name = t, line = pd[k, "line1"]))
    }
    NULL
  }
  add_def <- function(name, line, end, fn) {
    key <- paste0(f, ":", line)
    if (is.null(defs[[key]])) defs[[key]] <<- list(path = f, name = name, line = line, end = end)
    assign(fn, key, envir = def_of_fn)
    key
  }
  for (x in id) {
    k <- kid(x)
    tk <- token[[x]]
    if (tk == "SYMBOL_FORMALS") bind(fscope[[x]], text[[x]], "")
    if (tk == "forcond" && length(k) >= 2 && token[[k[2]]] == "SYMBOL") bind(fscope[[x]], text[[k[2]]], "")
    if (tk == "expr") {
      # `m = function(...)` in `R6Class(public = list(...))` / `setRefClass(methods = list(...))`:
      # `x` is the `list(...)` call, its parent the class's call.
      at <- which(unname(token[k]) == "EQ_SUB")
      fk <- if (length(k) > 0 && token[[k[1]]] == "expr") kid(k[1]) else character()
      if (length(at) > 0 && identical(unname(text[fk]), "list")) {
        outer <- parent[match(x, id)]
        ok <- kid(outer)
        pos <- match(x, ok)
        ofk <- if (length(ok) > 0 && token[[ok[1]]] == "expr") kid(ok[1]) else character()
        cls <- length(ofk) > 0 && text[[ofk[length(ofk)]]] %in% c("R6Class", "setRefClass")
        if (cls && !is.na(pos) && pos >= 3 && token[[ok[pos - 1]]] == "EQ_SUB" &&
            text[[ok[pos - 2]]] %in% c("public", "private", "active", "methods")) {
          for (a in at) {
            if (a >= 2 && a < length(k) && token[[k[a - 1]]] %in% c("SYMBOL_SUB", "STR_CONST") && is_fn(k[a + 1])) {
              add_def(gsub("^[\"'`]|[\"'`]$", "", text[[k[a - 1]]]), pd[k[a - 1], "line1"], pd[k[a + 1], "line2"], k[a + 1])
            }
          }
        }
      }
    }
    if (length(k) != 3) next
    op <- token[[k[2]]]
    optext <- text[[k[2]]]
    lhs <- NULL
    rhs <- NULL
    if (op %in% c("LEFT_ASSIGN", "EQ_ASSIGN") && optext %in% c(ASSIGN_LEFT, "<<-")) {
      lhs <- k[1]; rhs <- k[3]
    } else if (op == "RIGHT_ASSIGN") {
      lhs <- k[3]; rhs <- k[1]
      if (token[[rhs]] == "expr" && length(kid(rhs)) == 3 && token[[kid(rhs)[1]]] == "'('") rhs <- kid(rhs)[2]
    } else {
      next
    }
    n <- single_name(lhs)
    if (is.null(n)) next
    is_def <- is_fn(rhs)
    key <- if (is_def) add_def(n$name, n$line, pd[x, "line2"], rhs) else ""
    # `<<-` and `->>` bind in an enclosing environment: not a local binding.
    if (optext %in% c("<<-", "->>")) next
    bind(fscope[[x]], n$name, key)
  }
  parsed[[f]] <- list(pd = pd, id = id, token = token, text = text, kids = kids, parent = parent,
                      fscope = fscope, bound = bound, def_of_fn = def_of_fn)
}

# Pass 2: resolve every call.
edges <- list()
external <- 0
seen <- new.env()
for (f in names(parsed)) {
  P <- parsed[[f]]
  pd <- P$pd; token <- P$token; text <- P$text; fscope <- P$fscope
  kid <- function(x) { k <- P$kids[[x]]; if (is.null(k)) character() else k }
  parent_of <- setNames(P$parent, P$id)
  caller_of <- function(x) {
    s <- fscope[[x]]
    while (s != "0") {
      d <- get0(s, envir = P$def_of_fn, inherits = FALSE)
      if (!is.null(d)) return(d)
      s <- fscope[[s]]
    }
    paste0("<", f, ">")
  }
  quoted <- function(x) {
    y <- parent_of[[x]]
    while (!is.null(y) && y %in% P$id) {
      k <- kid(y)
      if (length(k) >= 2 && token[[k[1]]] == "'~'" || length(k) == 3 && token[[k[2]]] == "'~'") return(TRUE)
      if (length(k) >= 2 && token[[k[1]]] == "expr" && token[[k[2]]] == "'('") {
        fk <- kid(k[1])
        if (length(fk) >= 1 && token[[fk[length(fk)]]] == "SYMBOL_FUNCTION_CALL" &&
            text[[fk[length(fk)]]] %in% QUOTING) return(TRUE)
      }
      y <- parent_of[[y]]
    }
    FALSE
  }
  for (x in P$id[token == "SYMBOL_FUNCTION_CALL"]) {
    site <- paste0(f, ":", pd[x, "line1"], ":", pd[x, "col1"])
    caller <- caller_of(x)
    name <- sub("^`(.*)`$", "\\1", text[[x]])
    sib <- kid(parent_of[[x]])
    sibtok <- unname(token[sib])
    if (any(sibtok %in% c("'$'", "'@'"))) {
      unresolved[[length(unresolved) + 1]] <- list(caller = caller, site = site, why = "a call of an object's field ($, @)")
      next
    }
    if (quoted(x)) {
      unresolved[[length(unresolved) + 1]] <- list(caller = caller, site = site, why = "quoted code (runs where it is evaluated)")
      next
    }
    if (name %in% BY_NAME) {
      unresolved[[length(unresolved) + 1]] <- list(caller = caller, site = site, why = "a function called by name or value (do.call, match.fun, Recall)")
      next
    }
    callee <- NULL
    why <- NULL
    if (any(sibtok %in% c("NS_GET", "NS_GET_INT"))) {
      pkg <- text[[sib[sibtok == "SYMBOL_PACKAGE"][1]]]
      if (!identical(pkg, package)) { external <- external + 1; next }
      scope <- "0"
      ns <- TRUE
    } else {
      ns <- FALSE
      scope <- fscope[[x]]
      while (scope != "0") {
        e <- get0(scope, envir = P$bound, inherits = FALSE)
        b <- if (is.null(e)) NULL else get0(name, envir = e, inherits = FALSE)
        if (!is.null(b)) {
          if (length(b) == 1 && b != "") callee <- b else why <- "a local variable or parameter (its value is the run time's)"
          break
        }
        scope <- fscope[[scope]]
      }
    }
    if (is.null(callee) && is.null(why)) {
      b <- get0(name, envir = top, inherits = FALSE)
      if (is.null(b)) { external <- external + 1; next }
      if (length(b) == 1 && b != "") callee <- b else why <- "bound at top level to a value, or several times"
    }
    if (!is.null(why)) {
      unresolved[[length(unresolved) + 1]] <- list(caller = caller, site = site, why = why)
      next
    }
    k <- paste(caller, callee, site)
    if (is.null(get0(k, envir = seen, inherits = FALSE))) {
      assign(k, TRUE, envir = seen)
      edges[[length(edges) + 1]] <- list(caller = caller, callee = callee, site = site, ns = ns)
    }
  }
}

# What GNU R did not parse: every line with code on it.
for (f in failed) {
  lines <- readLines(file.path(folder, f), warn = FALSE)
  for (ln in which(grepl("\\w", lines))) {
    unresolved[[length(unresolved) + 1]] <- list(caller = NULL, site = paste0(f, ":", ln, ":0"),
                                                 why = "in a file R does not parse")
  }
}

# The check: codetools' global function names of each top-level function that the package
# defines at top level, against the names this resolution gives the calls in its span
# (`NAME::f()` apart: codetools sees a call of `::`).
calls <- do.call(rbind, lapply(names(parsed), function(f) {
  P <- parsed[[f]]
  x <- P$id[P$token == "SYMBOL_FUNCTION_CALL"]
  if (length(x) == 0) return(NULL)
  data.frame(path = f, line = P$pd[x, "line1"], name = unname(P$text[x]), stringsAsFactors = FALSE)
}))
resolved <- do.call(rbind, lapply(Filter(function(e) !e$ns, edges), function(e) {
  parts <- strsplit(e$site, ":")[[1]]
  data.frame(path = paste(parts[seq_len(length(parts) - 2)], collapse = ":"), line = as.integer(parts[length(parts) - 1]),
             name = defs[[e$callee]]$name, top = identical(get0(defs[[e$callee]]$name, envir = top, inherits = FALSE), e$callee),
             stringsAsFactors = FALSE)
}))
missing <- 0
extra <- 0
examples <- character()
for (name in ls(top, all.names = TRUE)) {
  b <- get(name, envir = top)
  if (length(b) != 1 || b == "") next
  d <- defs[[b]]
  P <- parsed[[d$path]]
  fn_node <- NULL
  for (x in P$id) if (identical(get0(x, envir = P$def_of_fn, inherits = FALSE), b)) { fn_node <- x; break }
  if (is.null(fn_node)) next
  code <- getParseText(P$pd, as.integer(fn_node))
  fun <- tryCatch(eval(parse(text = code, keep.source = FALSE)[[1]], envir = globalenv()), error = function(e) NULL)
  if (!is.function(fun)) next
  theirs <- suppressWarnings(findGlobals(fun, merge = FALSE)$functions)
  theirs <- theirs[vapply(theirs, function(n) { v <- get0(n, envir = top, inherits = FALSE); !is.null(v) && length(v) == 1 && v != "" }, TRUE)]
  span <- function(t) t[t$path == d$path & t$line >= d$line & t$line <= d$end, , drop = FALSE]
  written <- unique(span(calls)$name)
  ours <- if (is.null(resolved)) character() else { r <- span(resolved); unique(r$name[r$top]) }
  m <- setdiff(theirs, written)
  x <- setdiff(ours, theirs)
  missing <- missing + length(m)
  extra <- extra + length(x)
  if (length(examples) < 5 && length(c(m, x)) > 0) examples <- c(examples, paste0(b, ": codetools only ", paste(m, collapse = ","), "; ours only ", paste(x, collapse = ",")))
}
message(sprintf("ref_r: codetools check: %d global calls it finds that no call token names, %d resolved calls it does not find", missing, extra))
for (e in examples) message("  ", e)

out <- c("{", paste0("\"tool\": ", json_str(paste0("R ", getRversion(), " parser, lexical scoping; codetools ", packageVersion("codetools"))), ","),
         "\"defs\": {")
dk <- names(defs)
for (i in seq_along(dk)) {
  d <- defs[[dk[i]]]
  out <- c(out, paste0(json_str(dk[i]), ": {\"path\": ", json_str(d$path), ", \"name\": ", json_str(d$name),
                       ", \"line\": ", d$line, ", \"end\": ", d$end, ", \"kind\": \"function\"}",
                       if (i < length(dk)) "," else ""))
}
out <- c(out, "}, \"edges\": [")
for (i in seq_along(edges)) {
  e <- edges[[i]]
  out <- c(out, paste0("{\"caller\": ", json_str(e$caller), ", \"callee\": ", json_str(e$callee),
                       ", \"site\": ", json_str(e$site), ", \"how\": \"call\"}", if (i < length(edges)) "," else ""))
}
out <- c(out, "], \"unresolved\": [")
for (i in seq_along(unresolved)) {
  u <- unresolved[[i]]
  out <- c(out, paste0("{\"caller\": ", if (is.null(u$caller)) "null" else json_str(u$caller), ", \"site\": ",
                       json_str(u$site), ", \"why\": ", json_str(u$why), "}", if (i < length(unresolved)) "," else ""))
}
out <- c(out, paste0("], \"skipped\": {}, \"external_sites\": ", external, ", \"not_compiled\": [",
                     paste(vapply(failed, json_str, ""), collapse = ", "), "]}"))
writeLines(out)
message(sprintf("ref_r: %d files (%d not parsed), %d defs, %d edges, %d unresolved, %d external",
                length(files), length(failed), length(defs), length(edges), length(unresolved), external))
