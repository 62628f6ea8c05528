// Helpers shared by the algorithm units (not part of the interface).
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/job_types/job_config.h"

namespace edgeadmm::algorithms {

// The options only prox-admm implements: noise_in_state (paper 002 as
// printed) and the trusted-aggregator policy.
host::Error RefuseProxAdmmOnlyOptions(const jobs::JobConfig& config);

// Every one of `n` participants in every round (fixed m = m_min = n), σ = 0
// and both Gaussian budgets inf, for an algorithm whose privacy is not the
// Gaussian ledgers'. INVALID_ARGUMENT with `sigma_error` for a σ or a target
// ε, with `budget_error` for a finite budget (each says whose privacy it is).
host::Error ResolveEveryoneWithoutGaussianNoise(jobs::JobConfig& config,
                                                int64_t n,
                                                const char* sigma_error,
                                                const char* budget_error);

// Noise drawn on a grid (the devices': sdk grid_gaussian.h; the gateway's:
// sum_grid.h) is a discrete Gaussian, whose RDP is at most the continuous
// one's (Canonne, Kamath, Steinke 2020) but whose PLD the PLD accountant
// does not compute. Under trusted-aggregator the only noise is the
// gateway's single discrete Gaussian per released value, within a factor
// e^{±pη} of a post-processing of the continuous one at the charged ν
// (docs/privacy.md, "Discrete Gaussian", "Subsampling"): the job keeps its
// accountant. Under every other policy (a device's own noise, or a sum of
// several devices') the central ledgers use the RDP accountant.
void UseRdpForGridNoise(jobs::JobConfig& config);

// out = prox_{γ·r}(v) with the job's regularizer r and step γ.
void ProxInto(const jobs::JobConfig& config, const std::vector<double>& v,
              std::vector<double>& out);

// Element-wise sum of the first `length` entries of every upload.
std::vector<double> SumUploads(const std::vector<std::vector<double>>& uploads,
                               size_t length);

}  // namespace edgeadmm::algorithms
