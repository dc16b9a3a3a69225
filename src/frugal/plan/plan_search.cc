#include "frugal/plan/plan_search.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "frugal/perf/iteration.h"

namespace frugal {
namespace {

class Search {
 public:
  Search(const OpTimeModel& model, const StepSource& source, const Catalog& catalog,
         const PlanSearchJob& job, const PlanSearchOptions& options)
      : model_(model), source_(source), catalog_(catalog), job_(job), o_(options) {}

  Result<PlanAdvice> Run() {
    size_t done = 0, total = 0;
    auto wanted = [&](const InstanceSpec& inst) {
      return ProviderWanted(o_.advise, inst.provider) &&
             (o_.instance_types.empty() ||
              std::find(o_.instance_types.begin(), o_.instance_types.end(), inst.name) !=
                  o_.instance_types.end());
    };
    for (const InstanceSpec& inst : catalog_.instances()) total += wanted(inst);
    Prefetch(wanted);
    for (const InstanceSpec& inst : catalog_.instances()) {
      if (!wanted(inst)) continue;
      FRUGAL_RETURN_IF_ERROR(Instance(inst));
      if (o_.progress) o_.progress(++done, total);
    }
    out_.advice.skipped = std::move(skipped_).Sorted();
    for (const auto& [key, why] : notes_) out_.advice.notes.push_back(why);
    if (out_.advice.configs.empty() && !out_.closest) return NothingPriced(out_.advice.skipped);
    FinishAdvice(catalog_, o_.advise, &out_.advice);
    if (out_.advice.configs.empty() && out_.closest) {
      const ConfigResult& c = *out_.closest;
      out_.advice.reason = fmt::format(
          "no plan fits: the closest is {} x {} ({} x {}, {}, {}), needing {:.1f} GiB per GPU "
          "of {:.1f} GiB",
          c.instances, c.instance, c.gpus, c.gpu, c.precision, c.plan,
          c.memory_bytes / (1024.0 * 1024 * 1024), closest_gpu_gib_);
    }
    return std::move(out_);
  }

 private:
  void Skip(const InstanceSpec& inst, const std::string& reason) { skipped_.Add(inst, reason); }


  // The step at (precision, TP) and its blocks / op order; null step when
  // it cannot be built (the reason goes to the notes).
  struct StepShape {
    BlockMap blocks;
    std::vector<int> order;
  };
  std::pair<const CandidateStep*, const StepShape*> Step(size_t prec, int tp) {
    const auto skey = std::make_pair(prec, tp);
    auto sit = steps_.find(skey);
    if (sit == steps_.end()) {
      Result<std::shared_ptr<const CandidateStep>> s = source_(prec, tp);
      if (!s.ok()) {
        notes_.emplace(fmt::format("{} tp {}", o_.precisions[prec].name, tp),
                       fmt::format("TP {} left out ({}): {}", tp, o_.precisions[prec].name,
                                   s.status().message()));
      }
      sit = steps_.emplace(skey, s.ok() ? *s : nullptr).first;
      if (sit->second != nullptr) {
        StepShape& shape = shapes_[skey];
        Result<BlockMap> blocks = MapBlocks(sit->second->step);
        Result<std::vector<int>> order = sit->second->step.TopologicalOrder();
        if (blocks.ok() && order.ok()) {
          shape.blocks = std::move(blocks).value();
          shape.order = std::move(order).value();
        }
      }
    }
    if (sit->second == nullptr) return {nullptr, nullptr};
    return {sit->second.get(), &shapes_[skey]};
  }

  // One GPU's profile of a step; thread-safe (the model's Predict is).
  struct Computed {
    std::unique_ptr<StepProfile> profile;
    std::string unpriceable;  // why the GPU cannot be timed
  };
  Computed Compute(const GpuSpec& gpu, const CandidateStep& c, const StepShape& shape) const {
    Computed out;
    Result<std::vector<OpTimePrediction>> t = PredictOps(model_, c.step, gpu, o_.advise.fused);
    if (!t.ok()) {
      out.unpriceable = gpu.name + " cannot be timed: " + t.status().message();
      return out;
    }
    PlanInputs in;
    in.step = &c.step;
    in.op_times = &*t;
    in.memory = &c.memory;
    in.tp_all_reduces = c.all_reduces;
    in.micro_batch = c.micro_batch;
    in.seq_len = c.seq_len;
    in.model_forward_flops = c.model_forward_flops;
    if (!shape.order.empty()) {
      in.blocks = &shape.blocks;
      in.order = &shape.order;
    }
    Result<StepProfile> p = ProfileStep(in);
    if (p.ok()) out.profile = std::make_unique<StepProfile>(std::move(p).value());
    return out;
  }

  void Store(const GpuSpec& gpu, size_t prec, int tp, Computed c) {
    if (!c.unpriceable.empty()) unpriceable_.emplace(gpu.name, c.unpriceable);
    profiles_.emplace(std::make_tuple(gpu.name, prec, tp), std::move(c.profile));
  }

  // Every (GPU, precision, TP) profile the search will ask for, predicted
  // on all threads; stored in a fixed order, so the result does not depend
  // on the threads.
  void Prefetch(const std::function<bool(const InstanceSpec&)>& wanted) {
    struct Job {
      const GpuSpec* gpu;
      size_t prec;
      int tp;
      const CandidateStep* step;
      const StepShape* shape;
    };
    std::vector<Job> jobs;
    std::set<std::tuple<std::string, size_t, int>> seen;
    for (const InstanceSpec& inst : catalog_.instances()) {
      const GpuSpec* gpu = catalog_.FindGpu(inst.gpu);
      if (!wanted(inst) || gpu == nullptr || !inst.price_usd_per_hour) continue;
      for (size_t prec = 0; prec < o_.precisions.size(); ++prec) {
        if (!o_.precisions[prec].peak_tflops(*gpu).ok()) continue;
        for (int tp : o_.tp) {
          if (tp > inst.gpu_count || !seen.emplace(gpu->name, prec, tp).second) continue;
          auto [step, shape] = Step(prec, tp);
          if (step != nullptr) jobs.push_back({gpu, prec, tp, step, shape});
        }
      }
    }
    std::vector<Computed> done(jobs.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t k = next++; k < jobs.size(); k = next++) {
        done[k] = Compute(*jobs[k].gpu, *jobs[k].step, *jobs[k].shape);
      }
    };
    const unsigned threads =
        o_.threads > 0 ? static_cast<unsigned>(o_.threads)
                       : std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads && t < jobs.size(); ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    for (size_t k = 0; k < jobs.size(); ++k) {
      Store(*jobs[k].gpu, jobs[k].prec, jobs[k].tp, std::move(done[k]));
    }
  }

  // The profile of one GPU's step at (precision, TP); null when it cannot be built.
  const StepProfile* Profile(const GpuSpec& gpu, size_t prec, int tp) {
    const auto key = std::make_tuple(gpu.name, prec, tp);
    if (auto it = profiles_.find(key); it != profiles_.end()) return it->second.get();
    auto [step, shape] = Step(prec, tp);
    if (step == nullptr) {
      profiles_.emplace(key, nullptr);
      return nullptr;
    }
    Store(gpu, prec, tp, Compute(gpu, *step, *shape));
    return profiles_.at(key).get();
  }

  Status Instance(const InstanceSpec& inst) {
    const GpuSpec* gpu = catalog_.FindGpu(inst.gpu);
    if (gpu == nullptr) {
      Skip(inst, "GPU " + inst.gpu + " is not in the catalog");
      return Status::Ok();
    }
    if (!inst.price_usd_per_hour) {
      Skip(inst, "no on-demand price in the catalog");
      return Status::Ok();
    }
    std::string unsupported;
    bool any = false;
    for (size_t prec = 0; prec < o_.precisions.size(); ++prec) {
      Result<double> peak = o_.precisions[prec].peak_tflops(*gpu);
      if (!peak.ok()) {
        unsupported += (unsupported.empty() ? "" : "; ") + peak.status().message();
        continue;
      }
      any = true;
      for (int m = 1; m <= o_.advise.max_instances; ++m) Price(inst, *gpu, prec, *peak, m);
    }
    if (auto u = unpriceable_.find(gpu->name); u != unpriceable_.end()) Skip(inst, u->second);
    else if (!any) Skip(inst, unsupported);
    return Status::Ok();
  }

  void Price(const InstanceSpec& inst, const GpuSpec& gpu, size_t prec, double peak, int m) {
    const int per_node = inst.gpu_count;
    const int gpus = per_node * m;
    PlanOptions po;
    po.links = LinksFor(gpu, &inst, m);
    po.gpus_per_instance = per_node;
    po.peak_tflops = peak;
    std::optional<ConfigResult> best;
    for (int tp : o_.tp) {
      if (tp > per_node || gpus % tp != 0) continue;
      const StepProfile* prof = Profile(gpu, prec, tp);
      if (prof == nullptr) continue;
      for (int pp = 1; pp <= gpus / tp; pp *= 2) {
        if ((gpus / tp) % pp != 0) continue;
        if (pp > 1 && pp > prof->num_blocks) break;
        ParallelPlan plan;
        plan.tp = tp;
        plan.pp = pp;
        plan.dp = gpus / (tp * pp);
        int n = pp == 1 ? 1 : 4 * pp;
        if (job_.global_batch) {
          const int64_t per_step = static_cast<int64_t>(plan.dp) * prof->micro_batch;
          if (*job_.global_batch % per_step != 0) continue;
          n = static_cast<int>(*job_.global_batch / per_step);
        }
        (pp == 1 ? plan.grad_accum : plan.microbatches) = n;
        {
          // The lightest plan of this split first: when it does not fit,
          // none of the others does.
          ParallelPlan light = plan;
          light.zero = plan.dp >= 2 ? *std::max_element(o_.zero.begin(), o_.zero.end()) : 0;
          light.checkpointing = o_.checkpointing.back();
          Result<PlanPrediction> r = PricePlan(*prof, gpu, light, po);
          ++out_.plans_priced;
          if (!r.ok()) continue;
          if (!r->fits) {
            Closest(Config(inst, gpu, prec, m, *r), *r, gpu);
            continue;
          }
        }
        for (int zero : o_.zero) {
          if (zero > 0 && plan.dp < 2) continue;
          plan.zero = zero;
          for (Checkpointing ck : o_.checkpointing) {
            plan.checkpointing = ck;
            Result<PlanPrediction> r = PricePlan(*prof, gpu, plan, po);
            ++out_.plans_priced;
            if (!r.ok()) break;
            ConfigResult c = Config(inst, gpu, prec, m, *r);
            if (!r->fits) {
              Closest(std::move(c), *r, gpu);
              continue;
            }
            if (!best || c.hours < best->hours) best = std::move(c);
            break;  // heavier checkpointing only adds recomputation
          }
        }
      }
    }
    if (best) out_.advice.configs.push_back(std::move(*best));
  }

  void Closest(ConfigResult c, const PlanPrediction& r, const GpuSpec& gpu) {
    const double need = (c.memory_bytes + r.reserved_bytes) / r.gpu_memory_bytes;
    if (!out_.closest || need < closest_need_) {
      closest_need_ = need;
      closest_gpu_gib_ = gpu.mem_gib;
      out_.closest = std::move(c);
    }
  }

  ConfigResult Config(const InstanceSpec& inst, const GpuSpec& gpu, size_t prec, int m,
                      const PlanPrediction& r) const {
    ConfigResult c;
    c.instance = inst.name;
    c.provider = inst.provider;
    c.gpu = gpu.name;
    c.instances = m;
    c.gpus = r.plan.gpus();
    c.iteration_ms = r.step_ms;
    const double steps = std::ceil(job_.samples / r.samples_per_step);
    c.hours = steps * r.step_ms / 3.6e6;
    c.cost_usd = c.hours * *inst.price_usd_per_hour * m;
    c.fits = r.fits;
    c.links = c.gpus > 1 ? r.links : "";
    c.plan = DescribePlan(r.plan);
    c.precision = o_.precisions[prec].name;
    c.gpu_hours = c.hours * c.gpus;
    c.mfu = r.mfu;
    c.memory_bytes = static_cast<double>(r.memory.total());
    return c;
  }

  const OpTimeModel& model_;
  const StepSource& source_;
  const Catalog& catalog_;
  const PlanSearchJob& job_;
  const PlanSearchOptions& o_;
  PlanAdvice out_;
  double closest_need_ = 0, closest_gpu_gib_ = 0;
  std::map<std::pair<size_t, int>, std::shared_ptr<const CandidateStep>> steps_;
  // Per step: its blocks and op order, the same on every GPU.
  std::map<std::pair<size_t, int>, StepShape> shapes_;
  std::map<std::tuple<std::string, size_t, int>, std::unique_ptr<StepProfile>> profiles_;
  std::map<std::string, std::string> unpriceable_;
  std::map<std::string, std::string> notes_;
  SkipList skipped_;
};

}  // namespace

Result<PlanAdvice> SearchPlans(const OpTimeModel& model, const StepSource& source,
                               const Catalog& catalog, const PlanSearchJob& job,
                               const PlanSearchOptions& options) {
  if (!(job.samples > 0) || !std::isfinite(job.samples)) {
    return InvalidArgument("the job must train on > 0 samples");
  }
  if (job.global_batch && *job.global_batch < 1) {
    return InvalidArgument("--global-batch must be >= 1");
  }
  if (options.precisions.empty()) return InvalidArgument("no precision to search");
  JobSpec check;
  check.samples = job.samples;
  FRUGAL_RETURN_IF_ERROR(CheckAdviseInputs(check, options.advise));
  return Search(model, source, catalog, job, options).Run();
}

}  // namespace frugal
