/* libcoap 4.3.1 alone, no EdgeADMM code (issue 20): a client session the
 * application releases while a confirmable request of it still waits in the
 * retransmission queue, after an ICMP error reset the session, loses that
 * request. The retransmission starts a new handshake, coap_session_delay_pdu
 * drops the node's session reference (the last one), the session is freed
 * and the node is appended to the freed session's delay queue: LeakSanitizer
 * reports a 48-byte direct leak (the coap_queue_t from coap_send) holding the
 * PDU from coap_pdu_init (104 + 262 bytes), the shape seen at the fleet's exit
 * in aggregator_daemon_crash_test.
 *
 * Built with the host-asan preset (target libcoap_release_leak); run
 *   build/host-asan/tests/integration/coap_peer/libcoap_release_leak
 *     -> LeakSanitizer: 414 byte(s) leaked in 3 allocation(s), exit 1
 *   ... control      -> release after the retransmissions: no leak
 *   ... disconnect   -> coap_session_disconnected() before the release (what
 *                       CoapDtlsTransport::ReleaseSession does): no leak
 * Uses 127.0.0.1:56841. */
#include <coap3/coap.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void spin(coap_context_t *a, coap_context_t *b, int ms) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    if (a) coap_io_process(a, 10);
    if (b) coap_io_process(b, 10);
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv) {
  /* (no argument): release while the node waits -> leak (and libcoap writes
   *                into the freed session)
   * control:       release after the retransmissions -> no leak
   * disconnect:    coap_session_disconnected() first, then release -> none */
  const char *mode = argc < 2 ? "" : argv[1];
  const int release_early = strcmp(mode, "control") != 0;
  coap_startup();
  coap_set_log_level(LOG_ERR);
  coap_address_t addr;
  coap_address_init(&addr);
  addr.addr.sin.sin_family = AF_INET;
  addr.addr.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.addr.sin.sin_port = htons(56841);
  addr.size = sizeof(addr.addr.sin);

  coap_context_t *server = coap_new_context(NULL);
  coap_dtls_spsk_t spsk;
  memset(&spsk, 0, sizeof(spsk));
  spsk.version = COAP_DTLS_SPSK_SETUP_VERSION;
  spsk.psk_info.key.s = (const uint8_t *)"secret";
  spsk.psk_info.key.length = 6;
  if (!coap_context_set_psk2(server, &spsk) ||
      !coap_new_endpoint(server, &addr, COAP_PROTO_DTLS)) return 2;

  coap_context_t *client = coap_new_context(NULL);
  coap_dtls_cpsk_t cpsk;
  memset(&cpsk, 0, sizeof(cpsk));
  cpsk.version = COAP_DTLS_CPSK_SETUP_VERSION;
  cpsk.psk_info.identity.s = (const uint8_t *)"dev";
  cpsk.psk_info.identity.length = 3;
  cpsk.psk_info.key.s = (const uint8_t *)"secret";
  cpsk.psk_info.key.length = 6;
  coap_session_t *session =
      coap_new_client_session_psk2(client, NULL, &addr, COAP_PROTO_DTLS, &cpsk);
  if (!session) return 2;
  spin(client, server, 500);
  if (coap_session_get_state(session) != COAP_SESSION_STATE_ESTABLISHED) return 3;

  coap_free_context(server);  /* the peer goes away: its port is closed */
  coap_pdu_t *pdu = coap_new_pdu(COAP_MESSAGE_CON, COAP_REQUEST_CODE_GET, session);
  coap_send(session, pdu);    /* queued for retransmission (holds a session ref) */
  spin(client, NULL, 200);    /* ICMP port unreachable: session reset */
  fprintf(stderr, "state after ICMP: %d (0 = none)\n", coap_session_get_state(session));
  if (strcmp(mode, "disconnect") == 0)
    coap_session_disconnected(session, COAP_NACK_NOT_DELIVERABLE);
  if (release_early) coap_session_release(session);  /* the app lets go */
  spin(client, NULL, 4000);   /* the retransmission timer fires */
  if (!release_early) coap_session_release(session);
  coap_free_context(client);
  coap_cleanup();
  return 0;
}
