// Writes the seed inputs of the SecAgg+ fuzz targets: every phase frame
// and the session's blob in every phase (without its CRC-32, which the blob
// target appends), from one real round of three devices (n = 3, k = 2,
// m = 5, b = 16) run with the SDK's session. Usage: fuzz_secagg_seeds DIR
// (writes DIR/frames/* and DIR/blob/*).
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/device_session.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "edgeadmm/secagg/phase_frames.h"

namespace edgeadmm {
namespace {

constexpr uint32_t kN = 3;
constexpr size_t kK = 2;
constexpr size_t kM = 5;
constexpr uint64_t kRound = 77;

std::byte g_out[4096];

bool Save(const std::string& path, const StatusWithSize& n,
          size_t drop_tail = 0) {
  if (!n.ok() || n.size() < drop_tail) {
    std::fprintf(stderr, "fuzz_secagg_seeds: cannot encode %s\n", path.c_str());
    return false;
  }
  FILE* f = std::fopen(path.c_str(), "wb");
  const size_t size = n.size() - drop_tail;
  bool ok = f != nullptr && std::fwrite(g_out, 1, size, f) == size;
  if (f != nullptr && std::fclose(f) != 0) ok = false;
  if (!ok) {
    std::fprintf(stderr, "fuzz_secagg_seeds: cannot write %s\n", path.c_str());
  }
  return ok;
}

ByteSpan Out() { return ByteSpan(g_out, sizeof(g_out)); }

int Run(const std::string& dir) {
  const std::string frames = dir + "/frames/", blobs = dir + "/blob/";
  mkdir(dir.c_str(), 0755);
  mkdir(frames.c_str(), 0755);
  mkdir(blobs.c_str(), 0755);

  TestEntropy entropy(5);
  Drbg drbg;
  if (!drbg.Init(entropy, ConstByteSpan()).ok()) return 1;
  SecAggSessionParams params[kN];
  uint32_t x[kN][kM] = {};
  SecAggSessionArrays<kK, kM> arrays[kN];
  SecAggDeviceSession sessions[kN] = {SecAggDeviceSession(arrays[0].buffers()),
                                      SecAggDeviceSession(arrays[1].buffers()),
                                      SecAggDeviceSession(arrays[2].buffers())};
  for (uint32_t i = 0; i < kN; ++i) {
    params[i].round_id = kRound;
    params[i].devices = kN;
    params[i].degree = 2;
    params[i].threshold = 2;
    params[i].bits = 16;
    params[i].mask_length = kM;
    params[i].min_survivors = 2;
    params[i].own_index = i;
    for (size_t b = 0; b < kGraphSeedBytes; ++b) {
      params[i].graph_seed[b] = static_cast<std::byte>(b);
    }
    for (size_t w = 0; w < kM; ++w) x[i][w] = 1000u * i + w;
  }
  bool ok = Save(frames + "round", EncodeSecAggRound(params[0], Out()));
  for (uint8_t phase = 1; phase <= 3; ++phase) {
    ok &= Save(frames + "poll" + std::to_string(phase),
               EncodeSecAggPoll(phase, kRound, Out()));
  }
  // Phase 1: advertise; the gateway's answer lists the two others' keys.
  for (uint32_t i = 0; i < kN; ++i) {
    if (!sessions[i].Advertise(params[i], drbg).ok()) return 1;
  }
  ok &= Save(frames + "advertise",
             EncodeSecAggAdvertise(kRound, sessions[0].advertisement(), Out()));
  ok &= Save(blobs + "phase1", sessions[0].Serialize(Out()), 4);
  SecAggPeerKeys keys[kN][kK];
  for (uint32_t i = 0; i < kN; ++i) {
    size_t a = 0;
    for (uint32_t j = 0; j < kN; ++j) {
      if (j == i) continue;
      keys[i][a].device = j;
      std::memcpy(keys[i][a].encryption_public,
                  sessions[j].advertisement().encryption_public, 32);
      std::memcpy(keys[i][a].mask_public,
                  sessions[j].advertisement().mask_public, 32);
      ++a;
    }
  }
  ok &= Save(frames + "keys", EncodeSecAggKeys(kRound, keys[0], Out()));
  // Phase 2: sealed shares to the neighbours; the answer delivers theirs.
  for (uint32_t i = 0; i < kN; ++i) {
    if (!sessions[i].ShareKeys(keys[i], drbg).ok()) return 1;
  }
  ok &= Save(frames + "sealed",
             EncodeSecAggSealed(kRound, sessions[0].sealed_messages(), Out()));
  ok &= Save(blobs + "phase2", sessions[0].Serialize(Out()), 4);
  SecAggSealed delivered[kN][kK];
  for (uint32_t i = 0; i < kN; ++i) {
    size_t a = 0;
    for (uint32_t j = 0; j < kN; ++j) {
      for (const SecAggSealed& s : sessions[j].sealed_messages()) {
        if (s.peer != i || a == kK) continue;
        delivered[i][a] = s;
        delivered[i][a].peer = j;
        ++a;
      }
    }
  }
  ok &= Save(frames + "delivered",
             EncodeSecAggSealed(kRound, delivered[0], Out()));
  // Phase 3: masked inputs and the survivors' answer; phase 4: the shares.
  for (uint32_t i = 0; i < kN; ++i) {
    if (!sessions[i].MaskInput(delivered[i], x[i], drbg).ok()) return 1;
  }
  ok &= Save(frames + "words",
             EncodeSecAggWords(kRound, sessions[0].masked_input(), Out()));
  ok &= Save(blobs + "phase3", sessions[0].Serialize(Out()), 4);
  const uint32_t listed[] = {0, 1};
  SurvivorAnswer survivors;
  survivors.survivors = 2;
  survivors.listed = listed;
  ok &= Save(frames + "survivors",
             EncodeSecAggSurvivors(kRound, survivors, Out()));
  if (!sessions[0].Reveal(survivors).ok()) return 1;
  ok &= Save(frames + "reveal",
             EncodeSecAggReveal(kRound, sessions[0].revealed_shares(), Out()));
  ok &= Save(blobs + "phase4", sessions[0].Serialize(Out()), 4);
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace edgeadmm

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_secagg_seeds DIR\n");
    return 2;
  }
  return edgeadmm::Run(argv[1]);
}
