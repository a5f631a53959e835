/* The cost functions that depend on L and G, written once and compiled twice
 * by engine.c: with COST_T double (one evaluation; L and G are theta's) and
 * with COST_T a vector of lanes (the classification's points, each lane its
 * own L and G).  Both compile to the same IEEE operations in the same order,
 * so a lane's time is bit for bit the single evaluation's; anything that
 * does not depend on L or G stays a scalar and is broadcast.
 *
 * Before including: COST_T, COST_SFX (the name suffix), COST_SPLAT(x) (a
 * scalar as a COST_T), and theta_t, pwv_t, the kinds and the edge types. */

#define COST_CAT2(a, b) a##b
#define COST_CAT(a, b) COST_CAT2(a, b)
#define COST_FN(name) COST_CAT(name, COST_SFX)

/* one latency term of v's message, lcf(v) L + lat(v); one byte, gsc(v) G + bconst(v) */
static inline __attribute__((always_inline)) COST_T COST_FN(lterm)(const theta_t *t, COST_T L, uint64_t v) {
  return t->pk ? t->kl[t->pk[v]] * L + t->klat[t->pk[v]] : L;
}
static inline __attribute__((always_inline)) COST_T COST_FN(bterm)(const theta_t *t, COST_T G, uint64_t v) {
  return t->pk ? t->kg[t->pk[v]] * G + t->kb[t->pk[v]] : G;
}

static inline __attribute__((always_inline)) COST_T COST_FN(vcost)(unsigned k, double val, const theta_t *t, COST_T L,
                                                                   COST_T G, const pwv_t *pw, uint64_t v) {
  switch (k) {
  case K_CALC: return COST_SPLAT(val);
  case K_RECV_RNDV:
    return rndv_recv_l(t->full) * COST_FN(lterm)(t, L, v) + msg_bytes(val, t, pw, v) * COST_FN(bterm)(t, G, v) +
           (pw ? pw[v].c + pw[v].cpu : 0) + t->o;
  default: return COST_SPLAT(pw ? t->o + pw[v].cpu : t->o);
  }
}

static inline __attribute__((always_inline)) COST_T COST_FN(ecost)(unsigned type, double val_u, const theta_t *t,
                                                                   COST_T L, COST_T G, const pwv_t *pw, uint64_t u) {
  switch (type) {
  case E_EAGER:
  case E_RNDV_DONE:
    return COST_FN(lterm)(t, L, u) + (pw ? pw[u].c : 0) + msg_bytes(val_u, t, pw, u) * COST_FN(bterm)(t, G, u);
  case E_RTS: return rndv_rts_l(t->full) * COST_FN(lterm)(t, L, u);
  case E_GAP:
    return t->g + ((t->full & F_NIC) ? msg_bytes(val_u, t, pw, u) * COST_FN(bterm)(t, G, u) : COST_SPLAT(0));
  case E_GAPR: return COST_SPLAT(t->g); /* + the target's bytes: ecost_uv */
  case E_START: return COST_SPLAT(pw ? pw[u].sc : 0);
  default: return COST_SPLAT(0);
  }
}

/* The cost of the plan edge u -> v (kind_v, val_v: v's plan kind and value).
 * Only the NIC rule's receive chain depends on its target: an eager
 * receive's start is the end of its data, so the previous receive's start
 * (the end of its data) plus g plus THIS message's transfer bounds it
 * (LogGOPSim's arrival rule, arrivals g + (s_prev - 1) G apart, seen from
 * the end of each transfer); a rendezvous receive starts at the match, its
 * transfer L later: g alone (the previous transfer's end is not tracked). */
static inline __attribute__((always_inline)) COST_T COST_FN(ecost_uv)(unsigned type, double val_u, const theta_t *t,
                                                                      COST_T L, COST_T G, const pwv_t *pw, uint64_t u,
                                                                      unsigned kind_v, double val_v, uint64_t v) {
  if (type == E_BURST) { /* v's own message, after those ahead of it in u's run */
    if (kind_v == K_RECV_RNDV) return t->bk[v] * COST_FN(bterm)(t, G, v) + t->bn[v] * t->g; /* its read: v's cost */
    return COST_FN(lterm)(t, L, v) + (pw ? pw[v].c : 0) +
           (msg_bytes(val_v, t, pw, v) + t->bk[v]) * COST_FN(bterm)(t, G, v) + t->bn[v] * t->g;
  }
  if (type != E_GAPR) return COST_FN(ecost)(type, val_u, t, L, G, pw, u);
  return t->g + (kind_v == K_RECV ? (msg_bytes(val_v, t, pw, v) + (t->ck ? t->ck[v] : 0)) * COST_FN(bterm)(t, G, v)
                                  : COST_SPLAT(0));
}

#undef COST_FN
#undef COST_CAT
#undef COST_CAT2
