# R survey's svyciprop (method = "beta": Korn-Graubard; "logit") on the draws bench/study_small_k.py exports,
# for the study's recorded references (run once; CI and the study script need no R):
#
#   python bench/study_small_k.py --export-draws DIR
#   Rscript bench/study_small_k_r.R DIR > bench/study_small_k_r.json
#
# DIR/cells.csv lists the cells (population, k, file names); DIR/<population>.csv holds the population's
# per-document hits and chunks, DIR/<population>_k<K>.csv one draw of K document numbers (1-based) per row.
# Each draw is the design svydesign(ids = ~doc, fpc = ~D): one row per chunk for the micro ratio, one row
# per document with y = its rate for the macro mean.  Per cell and estimator the JSON records, for each
# method, how many draws gave a defined interval, how many of those held the population value, and the
# mean width of the defined ones; plus a fingerprint of the draws (their index sum) the study checks.
suppressMessages(library(survey))
suppressMessages(library(jsonlite))

dir <- commandArgs(trailingOnly = TRUE)[1]
cells <- read.csv(file.path(dir, "cells.csv"), stringsAsFactors = FALSE)
populations <- list()

bounds <- function(design, method) {
  ci <- tryCatch(suppressWarnings(attr(svyciprop(~y, design, method = method), "ci")),
                 error = function(e) c(NA, NA))
  as.numeric(ci)
}

summarise <- function(lo, hi, value) {
  defined <- is.finite(lo) & is.finite(hi)
  list(defined = sum(defined), held = sum(defined & lo <= value & value <= hi),
       mean_width = if (any(defined)) mean((hi - lo)[defined]) else NA)
}

out <- lapply(seq_len(nrow(cells)), function(i) {
  cell <- cells[i, ]
  if (is.null(populations[[cell$population]])) {
    populations[[cell$population]] <<- read.csv(file.path(dir, paste0(cell$population, ".csv")))
  }
  pop <- populations[[cell$population]]
  draws <- as.matrix(read.csv(file.path(dir, cell$draws), header = FALSE))
  d <- nrow(pop)
  values <- list(micro = sum(pop$sum_y) / sum(pop$n), macro = mean(pop$sum_y / pop$n))
  res <- list(micro = matrix(NA, nrow(draws), 4), macro = matrix(NA, nrow(draws), 4))
  for (r in seq_len(nrow(draws))) {
    idx <- draws[r, ]
    sum_y <- pop$sum_y[idx]
    n <- pop$n[idx]
    chunks <- data.frame(doc = rep(seq_along(idx), n), D = d,
                         y = unlist(mapply(function(h, m) rep(c(1, 0), c(h, m - h)), sum_y, n, SIMPLIFY = FALSE)))
    docs <- data.frame(doc = seq_along(idx), D = d, y = sum_y / n)
    for (est in c("micro", "macro")) {
      design <- suppressWarnings(svydesign(ids = ~doc, fpc = ~D, data = if (est == "micro") chunks else docs))
      res[[est]][r, ] <- c(bounds(design, "beta"), bounds(design, "logit"))
    }
  }
  list(population = cell$population, k = cell$k, draws = nrow(draws), index_sum = sum(draws),
       micro = list(value = values$micro,
                    korn_graubard = summarise(res$micro[, 1], res$micro[, 2], values$micro),
                    logit = summarise(res$micro[, 3], res$micro[, 4], values$micro)),
       macro = list(value = values$macro,
                    korn_graubard = summarise(res$macro[, 1], res$macro[, 2], values$macro),
                    logit = summarise(res$macro[, 3], res$macro[, 4], values$macro)))
})

cat(toJSON(list(generated_by = "bench/study_small_k_r.R", r_version = R.version.string,
                survey_version = as.character(packageVersion("survey")), cells = out),
           auto_unbox = TRUE, digits = NA, na = "null", pretty = TRUE), "\n")
