"""An SMTP server for tvguide's Swift tests (TestReceivers/SMTPReceiver.swift): Debian's aiosmtpd on loopback,
requiring STARTTLS and AUTH as sam/pw, each message parsed and written to FOLDER as JSON. Prints its port; stops
when its input ends."""
import email, email.header, json, os, socket, ssl, sys
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
folder, cert, key = sys.argv[1:4]
class Handler:
    async def handle_DATA(self, server, session, envelope):
        parsed = email.message_from_bytes(envelope.original_content)
        login = session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else ''
        record = {'from': envelope.mail_from, 'to': envelope.rcpt_tos,
                  'subject': str(email.header.make_header(email.header.decode_header(parsed['Subject']))),
                  'body': parsed.get_payload(decode=True).decode('utf-8'), 'messageID': parsed['Message-ID'],
                  'tls': session.ssl is not None, 'login': login}
        name = os.path.join(folder, '%04d.json' % len(os.listdir(folder)))
        with open(name + '.tmp', 'w') as f: json.dump(record, f)
        os.rename(name + '.tmp', name)
        return '250 OK'
def authenticate(server, session, envelope, mechanism, data):
    ok = isinstance(data, LoginPassword) and data.login == b'sam' and data.password == b'pw'
    # handled=False: aiosmtpd then answers a failure with 535 itself.
    return AuthResult(success=ok, handled=False, auth_data=data)
context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
context.load_cert_chain(cert, key)
probe = socket.socket(); probe.bind(('127.0.0.1', 0)); port = probe.getsockname()[1]; probe.close()
controller = Controller(Handler(), hostname='127.0.0.1', port=port, tls_context=context, require_starttls=True,
                        authenticator=authenticate, auth_require_tls=True, ready_timeout=10)
controller.start()
print(port, flush=True)
sys.stdin.read()
controller.stop()
