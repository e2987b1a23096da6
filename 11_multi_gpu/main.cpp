// 11_multi_gpu/main.cpp: one job on several GPUs. Each step gets a table: the links between the
// GPUs and what a copy over them reaches; the split sum against one GPU; the all-reduce by the
// ring, by one kernel per GPU (one shot, two shots, the ring's rounds) and by NCCL, in one run, each timing
// 20 calls back to back as nccl-tests does (bus bandwidth); gradient buckets with and without
// overlap. --bench takes the all-reduce from 8 B to 1 GiB per rank and ends with a summary.
#include <cstdlib>
#include <cstring>
#include <memory>

#include "multi_gpu.h"
#include "program.h"

namespace {

constexpr size_t kMeshMostBytes = (size_t)256 << 20;  // step 5's staging per rank, at the most
constexpr int kCallsPerRun = 20;  // all-reduces per timing, back to back (nccl-tests' iterations)

struct Settings {
    int gpus = 1, ranks = 1;
    size_t n = 0;       // floats per rank
    size_t bucket = 0;  // floats per gradient bucket
    int work = -1;      // multiply-adds per gradient; -1: chosen so compute takes as long as the all-reduce
    BenchConfig timing;
};

std::vector<int> first_devices(int k) {
    std::vector<int> d;
    for (int i = 0; i < k; ++i) d.push_back(i);
    return d;
}
double bus_factor(int ranks) { return ranks > 1 ? 2.0 * (ranks - 1) / ranks : 0.0; }
// The factor as the footers print it: only once kBusFactorAt8 (step 4's prediction) is right, since
// the factor at any rank count gives the rule away.
std::string factor_text(int ranks) {
    return std::fabs(kBusFactorAt8 - bus_factor(8)) < 1e-9 ? strf("%.3g", bus_factor(ranks)) : "? (kBusFactorAt8)";
}

// Inputs are random_whole_floats (compare.h): every sum in this program is exact in float, in any order.
double exact_sum(const std::vector<float>& v) { return sum_reference(v.data(), v.size()).sum; }

// The first `count` floats of rank r's buffer, on the host.
std::vector<float> download_prefix(const PerRank<float>& b, int r, size_t count) {
    std::vector<float> host(count);
    if (count > 0) CUDA_CHECK(cudaMemcpy(host.data(), b.at(r), count * sizeof(float), cudaMemcpyDefault));
    return host;
}

// Sums a float buffer where it lives (device_sum, then one float back): the copies' check.
float sum_on_device(const float* x, size_t n, int device, float* scratch, float* out) {
    OnDevice on(device);
    device_sum(x, n, out, scratch, 0);
    float v = 0;
    CUDA_CHECK(cudaMemcpy(&v, out, sizeof(float), cudaMemcpyDeviceToHost));
    return v;
}

Check exact_check(double got, double want) {
    const bool ok = got == want;
    return Check{ok, ok ? "exact" : strf("sum %.9g, expected %.9g", got, want)};
}

template <class Fn>
const Step<StepFn, StepInfo>* step_of() {
    for (const auto& s : kSteps)
        if (std::get_if<Fn>(&s.run)) return &s;
    return nullptr;
}
std::string label(const Step<StepFn, StepInfo>& s) { return std::to_string(s.number); }

// ---- Step 1: the machine -------------------------------------------------------------------
int measure_machine(const Program& p, const Settings& set, std::vector<RowResult>& all) {
    CUDA_CHECK(cudaSetDevice(0));  // the tables time on the current device: rank 0's
    const auto& step = *step_of<ExchangeFn>();
    const ExchangeFn exchange = std::get<ExchangeFn>(step.run);
    std::printf("== Step 1: the machine ==\n\n");
    if (set.gpus > 1) {
        Table links({"from", "to", "peer access", "performance rank (lower: faster)", "native atomics"});
        for (int a = 0; a < set.gpus; ++a)
            for (int b = 0; b < set.gpus; ++b)
                if (a != b) {
                    const LinkInfo l = query_link(a, b);
                    links.row({strf("GPU %d", a), strf("GPU %d", b), l.peer_access ? "yes" : "no",
                               std::to_string(l.performance_rank), l.native_atomics ? "yes" : "no"});
                }
        links.print();
        std::printf("\n(query_link, step 1: cudaDeviceCanAccessPeer and cudaDeviceGetP2PAttribute)\n\n");
    } else {
        std::printf("One GPU: no links between GPUs. The copies below are between two ranks on GPU 0.\n\n");
    }
    const size_t n = set.n, bytes = n * sizeof(float);
    const std::vector<float> x0 = random_whole_floats(n, p.seed), x1 = random_whole_floats(n, p.seed + 1);
    const double sum0 = exact_sum(x0), sum1 = exact_sum(x1);

    // One team of two ranks per pair of GPUs (or two ranks on GPU 0), with buffers of its own.
    struct Pair {
        int a, b;
        std::unique_ptr<Team> team;
        std::unique_ptr<PerRank<float>> src, dst, scratch, out;
    };
    std::vector<Pair> pairs;
    for (int a = 0; a < set.gpus; ++a)
        for (int b = a + 1; b < std::max(set.gpus, 2); ++b) {
            Pair q;
            q.a = a;
            q.b = b % set.gpus;
            q.team = std::make_unique<Team>(2, std::vector<int>{q.a, q.b});
            q.src = std::make_unique<PerRank<float>>(*q.team, n);
            q.dst = std::make_unique<PerRank<float>>(*q.team, n);
            q.scratch = std::make_unique<PerRank<float>>(*q.team, (size_t)kSumScratchFloats);
            q.out = std::make_unique<PerRank<float>>(*q.team, 1);
            q.src->upload(0, x0);
            q.src->upload(1, x1);
            pairs.push_back(std::move(q));
        }
    auto name = [&](const Pair& q, int r) {
        return set.gpus > 1 ? strf("GPU %d", r == 0 ? q.a : q.b) : strf("rank %d", r);
    };
    std::vector<StepRow> rows;
    for (auto& q : pairs) {
        auto received = [&q, sum0, sum1](int r) {  // rank r got the other rank's data
            const float got = sum_on_device(q.dst->at(r), q.dst->count(), q.team->device(r), q.scratch->at(r), q.out->at(r));
            return exact_check(got, r == 1 ? sum0 : sum1);
        };
        for (int from = 0; from < 2; ++from) {
            const int to = 1 - from;
            rows.push_back({label(step), name(q, from) + " -> " + name(q, to),
                            [&q, exchange, from, to, bytes] {
                                q.team->begin();
                                exchange(*q.team, {{from, to, q.src->at(from), q.dst->at(to), bytes}});
                                q.team->end();
                            },
                            [received, to] { return received(to); }, "", [&q] { q.dst->poison(); }});
            rows.back().work = Work{(double)bytes, 0};
        }
        rows.push_back({label(step), name(q, 0) + " <-> " + name(q, 1),
                        [&q, exchange, bytes] {
                            q.team->begin();
                            exchange(*q.team, {{0, 1, q.src->at(0), q.dst->at(1), bytes}, {1, 0, q.src->at(1), q.dst->at(0), bytes}});
                            q.team->end();
                        },
                        [received] {
                            Check a = received(0), b = received(1);
                            return a.ok ? b : a;
                        },
                        "", [&q] { q.dst->poison(); }});
        rows.back().work = Work{2.0 * bytes, 0};
    }
    // The baseline: a copy within one GPU (the course's own, exercise 01's copy bandwidth).
    Pair& q0 = pairs[0];
    rows.push_back(copy_row("cudaMemcpy within GPU 0", q0.dst->at(0), q0.src->at(0), bytes, [&q0, sum0] {
        return exact_check(sum_on_device(q0.dst->at(0), q0.dst->count(), q0.team->device(0), q0.scratch->at(0),
                                         q0.out->at(0)), sum0);
    }, RowKind::baseline));
    rows.back().work = Work{(double)bytes, 0};  // the bytes delivered, as the rows above count them
    TableSpec spec;
    spec.title = "copies between GPUs";
    spec.footer = "GB/s counts the bytes delivered per second: S one way, 2S both ways at once. The copy within a\n"
                  "GPU delivers S too, but its memory reads S and writes S.";
    Measurements m(spec, set.timing);
    m.section(strf("copies of %s (%s)", size_text(bytes).c_str(), set.gpus > 1 ? "each pair of GPUs" : "one GPU"),
              Work{(double)bytes, 0}, rows);
    const int failures = m.finish();
    all.insert(all.end(), m.results().begin(), m.results().end());
    std::printf("\n");
    return failures;
}

// ---- Step 2: split one job ------------------------------------------------------------------
int measure_split(const Program& p, const Settings& set, std::vector<RowResult>& all) {
    CUDA_CHECK(cudaSetDevice(0));  // the tables time on the current device: rank 0's
    const auto& step = *step_of<SplitSumFn>();
    const SplitSumFn split = std::get<SplitSumFn>(step.run);
    std::printf("== Step 2: split one job ==\n\n");
    Team team(set.ranks, first_devices(set.gpus));
    const size_t n = set.n;
    PerRank<float> parts(team, n), scratch(team, (size_t)kSumScratchFloats), sums(team, 1);
    std::vector<float> whole;
    for (int r = 0; r < team.size(); ++r) {
        const std::vector<float> x = random_whole_floats(n, p.seed + 10 + r);
        parts.upload(r, x);
        whole.insert(whole.end(), x.begin(), x.end());
    }
    const double want = exact_sum(whole);
    DeviceBuffer<float> all_on_0(whole), partials((size_t)team.size()), total(1), scratch0(kSumScratchFloats);
    whole = std::vector<float>();
    SplitSum job{parts.const_pointers(), std::vector<size_t>((size_t)team.size(), n), scratch.pointers(),
                 sums.pointers(), partials.get(), total.get()};
    auto check = [&] { return exact_check(total.download()[0], want); };
    auto poison = [&] { total.poison(); };
    std::vector<StepRow> rows;
    rows.push_back({label(step), strf("split_sum over %d ranks", team.size()),
                    [&] {
                        team.begin();
                        split(team, job);
                        team.end();
                    },
                    check, "", poison});
    rows.push_back({"-", "device_sum of it all on GPU 0",
                    [&] { device_sum(all_on_0.get(), all_on_0.size(), total.get(), scratch0.get(), 0); }, check, "",
                    poison, RowKind::baseline});
    TableSpec spec;
    spec.title = "the sum of one array spread over the ranks";
    spec.columns = {cols::step(), cols::kernel(), cols::time(), cols::rate(spec.rate), cols::of_baseline("% of one GPU"),
                    cols::check()};
    spec.footer = strf("GB/s counts the 4 bytes of every float read. %s.", team.describe().c_str());
    Measurements m(spec, set.timing);
    m.section(strf("%zu floats in all (%s per rank)", n * team.size(), size_text(4.0 * n).c_str()),
              Work{4.0 * n * team.size(), 1.0 * n * team.size()}, rows);
    const int failures = m.finish();
    all.insert(all.end(), m.results().begin(), m.results().end());
    std::printf("\n");
    return failures;
}

// ---- Steps 3 and 4: the all-reduce ------------------------------------------------------------
// Communicators for the NCCL rows, made by step 4's nccl_communicators: with the environment's
// algorithm choice, and with NCCL_ALGO=Ring (NCCL reads it when a communicator is created).
struct NcclSet {
    std::unique_ptr<NcclComms> tuned, ring;
    std::string why_not;  // non-empty: no NCCL rows, and why
};
NcclSet make_nccl(const Team& team) {
    NcclSet s;
    if (!team.one_gpu_per_rank()) {
        s.why_not = "NCCL needs a GPU per rank (this team has virtual ranks)";
        return s;
    }
    s.tuned = std::make_unique<NcclComms>(nccl_communicators(team));
    for (ncclComm_t c : s.tuned->get())
        if (!c) {
            s.why_not = "nccl_communicators made no communicator (is TODO step 4 done?)";
            s.tuned.reset();
            return s;
        }
    const char* before = std::getenv("NCCL_ALGO");
    const std::string saved = before ? before : "";
    setenv("NCCL_ALGO", "Ring", 1);
    s.ring = std::make_unique<NcclComms>(nccl_communicators(team));
    if (before)
        setenv("NCCL_ALGO", saved.c_str(), 1);
    else
        unsetenv("NCCL_ALGO");
    return s;
}

int measure_allreduce(const Program& p, const Settings& set, const std::vector<size_t>& sizes, bool summary,
                      std::vector<RowResult>& all) {
    CUDA_CHECK(cudaSetDevice(0));  // the tables time on the current device: rank 0's
    const auto *ring_step = step_of<RingFn>(), *nccl_step = step_of<NcclFn>(), *direct_step = step_of<DirectFn>();
    const auto* ring_kernel_step = step_of<RingKernelFn>();
    const bool want_ring = p.selected(ring_step->name), want_nccl = p.selected(nccl_step->name),
               want_direct = p.selected(direct_step->name), want_ring_kernel = p.selected(ring_kernel_step->name);
    const RingFn ring = std::get<RingFn>(ring_step->run);
    const NcclFn nccl = std::get<NcclFn>(nccl_step->run);
    const DirectFn direct = std::get<DirectFn>(direct_step->run);
    const RingKernelFn ring_kernel = std::get<RingKernelFn>(ring_kernel_step->run);
    std::printf("== Steps 3, 4, 5 and 7: the all-reduce, by a ring, by NCCL, by one kernel per GPU ==\n\n");
    Team team(set.ranks, first_devices(set.gpus)), copies(set.ranks, first_devices(set.gpus), Reach::copies);
    const int R = team.size();
    NcclSet comms;
    if (want_nccl) comms = make_nccl(team);
    const size_t most = *std::max_element(sizes.begin(), sizes.end()) / sizeof(float);
    std::string no_mesh = why_no_mesh(team);
    std::unique_ptr<PeerMesh> mesh;
    if ((want_direct || want_ring_kernel) && no_mesh.empty())
        mesh = std::make_unique<PeerMesh>(team, want_direct ? std::min(4 * most, kMeshMostBytes) : 16);
    PerRank<float> send(team, most), recv(team, most), staging(team, (most + R - 1) / R);
    std::vector<float> wanted(most, 0.0f);  // sums of whole numbers: exact in float
    for (int r = 0; r < R; ++r) {
        const std::vector<float> x = random_whole_floats(most, p.seed + 20 + r);
        send.upload(r, x);
        for (size_t i = 0; i < most; ++i) wanted[i] += x[i];
    }

    TableSpec spec;
    spec.title = "all-reduce";
    spec.rate.heading = "busbw GB/s";
    spec.columns = {cols::step(), cols::kernel(), cols::time(), cols::rate(spec.rate), cols::of_baseline("% of NCCL"),
                    cols::check()};
    spec.calls_per_run = kCallsPerRun;
    spec.footer = "busbw: nccl-tests' bus bandwidth, size per second times a factor of the " + std::to_string(R) +
                  " ranks (" + factor_text(R) + "):\n" +
                  "what every rank's link carries, comparable across rank counts. " + team.describe() + ".\n" +
                  "NCCL: its own choice of algorithm and protocol (NVLink multicast off), and NCCL_ALGO=Ring.\n" +
                  strf("Times are per call: %d calls back to back between two events, as nccl-tests times them.", kCallsPerRun);
    Measurements m(spec, set.timing);
    for (size_t bytes : sizes) {
        const size_t count = bytes / sizeof(float);
        AllReduce job;
        for (int r = 0; r < R; ++r) {
            job.send.push_back(send.at(r));
            job.recv.push_back(recv.at(r));
            job.staging.push_back(staging.at(r));
        }
        job.count = count;
        job.type = DType::f32;
        auto check = [&recv, &wanted, R, count] {
            for (int r = 0; r < R; ++r) {
                const std::vector<float> got = download_prefix(recv, r, count);
                if (count > 0 && std::memcmp(got.data(), wanted.data(), count * sizeof(float)) != 0) {
                    size_t i = 0;
                    while (got[i] == wanted[i]) ++i;
                    return Check{false, strf("rank %d [%zu]: %.9g, expected %.9g", r, i, got[i], wanted[i])};
                }
            }
            return Check{true, "exact on every rank"};
        };
        auto poison = [&recv] { recv.poison(); };
        auto on = [&job](const Team& t, auto fn) {
            return [&t, &job, fn] {
                t.begin();
                for (int k = 0; k < kCallsPerRun; ++k) fn(t, job);
                t.end();
            };
        };
        std::vector<StepRow> rows;
        if (want_ring) {
            rows.push_back({label(*ring_step), ring_step->name, on(team, ring), check, "", poison});
            rows.push_back({label(*ring_step), "ring, copies (no peer reads)", on(copies, ring), check,
                            R > 1 ? "" : "one rank: nothing to copy", poison});
        }
        if (want_direct)
            for (Shots shots : {Shots::one, Shots::two}) {
                const bool fits = mesh && bytes <= mesh->capacity();
                auto run = [direct, &mesh, shots, bytes](const Team& t, const AllReduce& a) {
                    direct(t, *mesh, a, shots, direct_blocks(bytes, shots));
                };
                rows.push_back({label(*direct_step), std::string("direct, ") + shots_name(shots),
                                fits ? std::function<void()>(on(team, run)) : std::function<void()>(), check,
                                !no_mesh.empty() ? no_mesh : fits ? "" : "larger than the mesh's staging (" + size_text(kMeshMostBytes) + ")",
                                poison});
            }
        if (want_ring_kernel) {
            auto run = [ring_kernel, &mesh, bytes](const Team& t, const AllReduce& a) {
                ring_kernel(t, *mesh, a, ring_kernel_blocks(bytes));
            };
            rows.push_back({label(*ring_kernel_step), ring_kernel_step->name,
                            mesh ? std::function<void()>(on(team, run)) : std::function<void()>(), check, no_mesh, poison});
        }
        if (want_nccl) {
            auto with = [nccl](const std::unique_ptr<NcclComms>& c) {
                return [nccl, &c](const Team& t, const AllReduce& a) { nccl(t, a, c->get()); };
            };
            using Run = std::function<void()>;
            rows.push_back({label(*nccl_step), nccl_step->name, comms.tuned ? Run(on(team, with(comms.tuned))) : Run(), check,
                            comms.why_not, poison, RowKind::baseline});
            rows.push_back({label(*nccl_step), "nccl, NCCL_ALGO=Ring", comms.ring ? Run(on(team, with(comms.ring))) : Run(),
                            check, comms.why_not, poison, RowKind::reference});
        }
        m.section(strf("%s per rank", size_text((double)bytes).c_str()), Work{bytes * bus_factor(R), 0}, rows);
    }
    int failures = m.finish();
    const std::vector<RowResult>& res = m.results();
    all.insert(all.end(), res.begin(), res.end());
    if (summary) {
        // nccl-tests' layout: one line per size, times in microseconds, both bandwidths.
        auto find = [&](const std::string& section, const std::string& name) -> const RowResult* {
            for (const auto& r : res)
                if (r.section == section && r.name == name && r.timed()) return &r;
            return nullptr;
        };
        auto us = [](const RowResult* r) { return r ? strf("%.1f", r->ms * 1e3) : std::string("-"); };
        auto bus = [](const RowResult* r) { return r ? strf("%.1f", r->rate) : std::string("-"); };
        auto share = [](const RowResult* a, const RowResult* b) {
            return a && b ? strf("%.0f", 100 * b->ms / a->ms) : std::string("-");
        };
        auto best = [](const RowResult* a, const RowResult* b) { return !a ? b : !b ? a : a->ms <= b->ms ? a : b; };
        Table t({"size per rank", "ring (us)", "one shot (us)", "two shots (us)", "ring_kernel (us)", "NCCL (us)",
                 "ring busbw", "direct busbw", "ring_kernel busbw", "NCCL busbw", "ring % of NCCL", "direct % of NCCL",
                 "ring_kernel % of NCCL"});
        for (size_t bytes : sizes) {
            const std::string s = strf("%s per rank", size_text((double)bytes).c_str());
            const RowResult *ring_r = find(s, ring_step->name), *one = find(s, "direct, one shot"),
                            *two = find(s, "direct, two shots"), *nccl_r = find(s, nccl_step->name), *direct_r = best(one, two),
                            *kernel_r = find(s, ring_kernel_step->name);
            t.row({size_text((double)bytes), us(ring_r), us(one), us(two), us(kernel_r), us(nccl_r), bus(ring_r),
                   bus(direct_r), bus(kernel_r), bus(nccl_r), share(ring_r, nccl_r), share(direct_r, nccl_r),
                   share(kernel_r, nccl_r)});
        }
        std::printf("\nSummary (busbw in GB/s: size / time x %s; direct: the faster of one and two shots):\n\n",
                    factor_text(R).c_str());
        t.print();
    }
    std::printf("\n");
    return failures;
}

// ---- Step 5: overlap --------------------------------------------------------------------------
int measure_overlap(const Program& p, const Settings& set, std::vector<RowResult>& all) {
    CUDA_CHECK(cudaSetDevice(0));  // the tables time on the current device: rank 0's
    (void)p;
    const auto& step = *step_of<OverlapFn>();
    const OverlapFn overlapped = std::get<OverlapFn>(step.run);
    std::printf("== Step %d: overlap ==\n\n", step.number);
    Team compute(set.ranks, first_devices(set.gpus)), comm(set.ranks, first_devices(set.gpus), Reach::peer, true);
    const int R = compute.size();
    const size_t n = set.n, bucket = std::min(set.bucket, std::max<size_t>(n, 1));
    NcclSet comms = make_nccl(compute);
    const RingFn ring = std::get<RingFn>(step_of<RingFn>()->run);
    const NcclFn nccl = std::get<NcclFn>(step_of<NcclFn>()->run);
    AllReduceFn allreduce = [ring](const Team& t, const AllReduce& a) { ring(t, a); };
    std::string by = "the ring of step 3 (" + comms.why_not + ")";
    if (comms.tuned) {
        allreduce = [nccl, &comms](const Team& t, const AllReduce& a) { nccl(t, a, comms.tuned->get()); };
        by = "NCCL (step 4)";
    }
    PerRank<float> grads(compute, n), send(compute, n), staging(compute, (bucket + R - 1) / R);
    GradientJob job{grads.pointers(), {}, n, bucket, set.work};
    for (int r = 0; r < R; ++r) job.staging.push_back(staging.at(r));
    auto produce_all = [&](PerRank<float>& into, int work) {
        compute.begin();
        for (int r = 0; r < R; ++r) {
            OnDevice on(compute.device(r));
            produce_gradients(into.at(r), 0, n, r, work, compute.stream(r));
        }
        compute.end();
    };
    auto allreduce_all = [&] {
        compute.begin();
        for (size_t begin = 0; begin < n; begin += bucket) {
            AllReduce a = bucket_allreduce(job, begin, std::min(n, begin + bucket));
            for (int r = 0; r < R; ++r) a.send[r] = send.at(r) + begin;
            allreduce(compute, a);
        }
        compute.end();
    };
    produce_all(send, 1);
    CUDA_CHECK(cudaDeviceSynchronize());
    if (job.work < 0) {  // as much compute as communication: where overlap can hide the most
        allreduce_all();  // warm-up: NCCL connects its ranks on the first call, which takes far longer
        produce_all(grads, 256);
        GpuTimer timer;
        timer.start();
        allreduce_all();
        const double comm_ms = timer.stop_ms();
        // The compute time grows with the work once the arithmetic outweighs the stores.
        int work = 256;
        for (int round = 0; round < 3; ++round) {
            timer.start();
            produce_all(grads, work);
            const double ms = timer.stop_ms();
            work = (int)std::clamp(work * comm_ms / std::max(ms, 1e-3), 1.0, 100000.0);
        }
        job.work = work;
    }
    std::vector<float> want(n, 0.0f);
    for (size_t i = 0; i < n; ++i)
        for (int r = 0; r < R; ++r) want[i] += gradient_value(i, r);
    auto holds = [&](bool summed) {
        for (int r = 0; r < R; ++r) {
            const std::vector<float> got = download_prefix(grads, r, n);
            for (size_t i = 0; i < n; ++i)
                if (got[i] != (summed ? want[i] : gradient_value(i, r)))
                    return Check{false, strf("rank %d [%zu]: %.9g", r, i, got[i])};
        }
        return Check{true, summed ? "exact sums" : "exact gradients"};
    };
    auto poison = [&] { grads.poison(); };
    std::vector<StepRow> rows;
    rows.push_back({"-", "compute alone", [&] { produce_all(grads, job.work); }, [&] { return holds(false); }, "",
                    poison, RowKind::reference});
    rows.push_back({"-", "all-reduce alone", allreduce_all, [&] { return holds(true); }, "", poison, RowKind::reference});
    rows.back().work = Work{4.0 * n, 0};  // no multiply-adds: the plot draws it as a roof of its own
    rows.push_back({"-", "compute, then all-reduce",
                    [&] {
                        compute.begin();
                        serial_step(compute, job, allreduce);
                        compute.end();
                    },
                    [&] { return holds(true); }, "", poison, RowKind::baseline});
    rows.push_back({label(step), step.name,
                    [&] {
                        compute.begin();
                        overlapped(compute, comm, job, allreduce);
                        compute.end();
                    },
                    [&] { return holds(true); }, "", poison});
    TableSpec spec;
    spec.title = "gradient buckets";
    spec.columns = {cols::step(), cols::kernel(), cols::time(), cols::rate(spec.rate), cols::of_baseline("% of no overlap"),
                    cols::check()};
    spec.footer = "GB/s counts the " + size_text(4.0 * n) + " of gradients per rank; the plot counts 2 FLOP per\n"
                  "multiply-add of the compute. All-reduce by " + by + "; " + compute.describe() + ".";
    Measurements m(spec, set.timing);
    const size_t buckets = (n + bucket - 1) / bucket;
    m.section(strf("%s of gradients per rank in %zu bucket%s of %s; %d multiply-adds per gradient",
                   size_text(4.0 * n).c_str(), buckets, buckets == 1 ? "" : "s", size_text(4.0 * bucket).c_str(),
                   job.work),
              Work{4.0 * n, 2.0 * job.work * n}, rows);
    const int failures = m.finish();
    const std::vector<RowResult>& res = m.results();
    all.insert(all.end(), res.begin(), res.end());
    double ms[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < res.size() && i < 4; ++i) ms[i] = res[i].ms;
    if (ms[0] > 0 && ms[1] > 0 && ms[2] > 0 && ms[3] > 0) {
        std::printf("\nThe overlap hid %.0f%% of the all-reduce time: (%.3f - %.3f) / %.3f ms. Perfect overlap would take\n"
                    "max(compute, all-reduce) plus one bucket of the other: about %.3f ms.\n",
                    100 * (ms[2] - ms[3]) / ms[1], ms[2], ms[3], ms[1],
                    std::max(ms[0], ms[1]) + std::min(ms[0], ms[1]) / (double)buckets);
        if (ms[3] > ms[2] && set.gpus == 1)  // not a bug: both halves want the same resource
            std::printf("Overlapped took longer than one after the other: on one GPU the all-reduce's copies and the\n"
                        "compute share its memory and SMs, so running them at once only adds contention. Between GPUs\n"
                        "the all-reduce moves over the links, and the overlap pays.\n");
    }
    std::printf("\n");
    return failures;
}

}  // namespace

int main(int argc, char** argv) {
    Program p(argc, argv,
              {"one job on several GPUs: links, a split sum, all-reduces against NCCL, overlap",
               {{"--gpus K", "GPUs to use: 0 .. K-1", "every GPU"},
                {"--ranks R", "ranks; more ranks than GPUs share them (virtual ranks)", "one per GPU"},
                {"--n N", "floats per rank", "2^26, 256 MiB"},
                {"--bucket B", "floats per gradient bucket", "2^22, 16 MiB"},
                {"--work W", "multiply-adds per gradient", "as long as the all-reduce"}},
               step_decls(kSteps), {}, "the all-reduce from 8 B to 1 GiB per rank, and every other table"});
    const int gpus_asked = p.integer("--gpus", 0, 1, kMaxRanks);
    const int ranks_asked = p.integer("--ranks", 0, 1, kMaxRanks);
    const size_t n = p.size("--n", (size_t)1 << 26, 1, (size_t)1 << 32);
    const size_t bucket = p.size("--bucket", (size_t)1 << 22, 1, (size_t)1 << 32);
    const int work = p.integer("--work", -1, 0, 10000000);
    p.not_with_bench({"--n", "--bucket", "--work"});
    p.finish();
    if (p.given("--gpus") && p.given("--ranks") && ranks_asked < gpus_asked)
        p.fail("--ranks", strf("must be at least --gpus (%d): every GPU needs a rank", gpus_asked));

    // NVLink multicast (NCCL's NVLS algorithms) stays off unless the environment says otherwise:
    // it can take a shared machine's GPUs out of service (README). Set before NCCL starts.
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    // The host's share first (inputs and sums of every rank asked for), so that a size too large
    // for this machine is refused as such, with or without a GPU.
    const double host_per_rank = 4.0 * (p.bench ? (double)((size_t)1 << 28) : (double)n);
    require_fits_in_host(p, p.bench ? "--bench" : "--n", host_per_rank * (std::max({ranks_asked, gpus_asked, 1}) + 3));
    require_gpu(p.program().c_str());
    int visible = 0;
    CUDA_CHECK(cudaGetDeviceCount(&visible));
    if (gpus_asked > visible)
        p.fail("--gpus", strf("this machine has %d GPU%s (got %d)", visible, visible == 1 ? "" : "s", gpus_asked));
    Settings set;
    set.gpus = gpus_asked > 0 ? gpus_asked : std::min(visible, kMaxRanks);
    set.ranks = ranks_asked > 0 ? ranks_asked : set.gpus;
    if (set.ranks < set.gpus) set.gpus = set.ranks;  // --ranks 2 on a machine with 8 GPUs: GPUs 0 and 1
    set.n = n;
    set.bucket = bucket;
    set.work = p.given("--work") ? work : -1;
    // Each all-reduce timing is 20 calls already: the median of 10 such timings, as the default run.
    set.timing = BenchConfig{2, 10, true};
    const std::vector<size_t> sweep = {8, 64, 512, 4 << 10, 32 << 10, 256 << 10, 2 << 20, 16 << 20, 64 << 20,
                                       256 << 20, (size_t)1 << 30};
    if (p.bench) set.n = (size_t)1 << 26;
    // Per GPU at the most: the all-reduce's send, recv and staging and step 5's two staging
    // buffers for every rank it holds (the bench: 1 GiB each, staging up to 256 MiB), the split
    // sum's copy of every part on GPU 0. Host: inputs and sums.
    const double per_rank = host_per_rank, mesh = 2.0 * std::min(per_rank, (double)kMeshMostBytes);
    const int ranks_on_0 = (set.ranks + set.gpus - 1) / set.gpus;
    const double machine = 8.0 * set.n * std::max(set.gpus - 1, 2), split = 4.0 * set.n * (set.ranks + ranks_on_0);
    require_memory(p, p.bench ? "--bench" : "--n", per_rank * (set.ranks + 3),
                   std::max({(2.75 * per_rank + mesh) * ranks_on_0, machine, split}) + (256 << 20));

    int nccl_version = 0;
    NCCL_CHECK(ncclGetVersion(&nccl_version));
    const DeviceFacts dev = device_facts(0);
    std::printf("%d rank%s on %d GPU%s (%s", set.ranks, set.ranks == 1 ? "" : "s", set.gpus, set.gpus == 1 ? "" : "s",
                dev.name.c_str());
    for (int d = 1; d < set.gpus; ++d)
        if (device_facts(d).name != dev.name) std::printf(", GPU %d: %s", d, device_facts(d).name.c_str());
    std::printf("); NCCL %d.%d.%d (built against %d.%d.%d); NCCL_NVLS_ENABLE=%s\n", nccl_version / 10000,
                nccl_version / 100 % 100, nccl_version % 100, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH,
                std::getenv("NCCL_NVLS_ENABLE"));
    std::printf("Method: %s; every result checked before and after timing.\n\n", timing_method(set.timing).c_str());

    std::vector<RowResult> all;
    int failures = 0;
    if (p.selected(step_of<ExchangeFn>()->name)) failures += measure_machine(p, set, all);
    if (p.selected(step_of<SplitSumFn>()->name)) failures += measure_split(p, set, all);
    if (p.selected(step_of<RingFn>()->name) || p.selected(step_of<NcclFn>()->name) || p.selected(step_of<DirectFn>()->name) ||
        p.selected(step_of<RingKernelFn>()->name))
        failures += measure_allreduce(p, set, p.bench ? sweep : std::vector<size_t>{4 * set.n}, p.bench, all);
    if (p.selected(step_of<OverlapFn>()->name)) failures += measure_overlap(p, set, all);

    // Every table's rows in one CSV (and the last table's on the roofline plot), if asked for.
    if (!p.outputs().csv.empty() || !p.outputs().plot.empty()) {
        TableSpec spec;
        spec.title = "one job on several GPUs";
        Measurements files(spec, set.timing, p.outputs());
        for (auto& r : all) files.add(r);
        files.finish();
    }
    return failures ? 1 : 0;
}
