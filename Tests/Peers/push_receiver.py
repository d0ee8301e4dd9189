"""A push service and a browser in one, for tvguide's Swift tests (TestReceivers/PushReceiver.swift): holds a
subscription's keys, checks each request's VAPID signature (PyPI cryptography), decrypts its body (PyPI http-ece) and
writes what it got to FOLDER, one JSON file per request. Over https, as push services are: a certificate for
127.0.0.1 made here, self-signed, written to FOLDER/push-ca.pem for the sender to trust (tvguide's outbound-ca). Prints
its port, keys and certificate; stops when its input ends."""
import base64, datetime, http.server, ipaddress, json, os, ssl, sys, threading
import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec, utils
from cryptography.x509.oid import NameOID
folder = sys.argv[1]
def b64(data): return base64.urlsafe_b64encode(data).rstrip(b'=').decode()
def unb64(text): return base64.urlsafe_b64decode(text + '=' * (-len(text) % 4))
key = ec.generate_private_key(ec.SECP256R1())
auth = os.urandom(16)
public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('Content-Length', '0')))
        record = {'path': self.path, 'headers': {k.lower(): v for k, v in self.headers.items()}}
        try:
            record['payload'] = http_ece.decrypt(body, private_key=key, auth_secret=auth, version='aes128gcm').decode()
        except Exception as error:
            record['payload'] = 'UNREADABLE: %s' % error
        try:
            scheme, rest = self.headers['Authorization'].split(' ', 1)
            parts = dict(part.strip().split('=', 1) for part in rest.split(','))
            token, vapid = parts['t'], parts['k']
            header, claims, signature = token.split('.')
            raw = unb64(signature)
            der = utils.encode_dss_signature(int.from_bytes(raw[:32], 'big'), int.from_bytes(raw[32:], 'big'))
            signer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(vapid))
            signer.verify(der, (header + '.' + claims).encode(), ec.ECDSA(hashes.SHA256()))
            payload = json.loads(unb64(claims))
            record.update({'vapidValid': scheme == 'vapid', 'aud': payload['aud'], 'sub': payload['sub'], 'k': vapid})
        except Exception as error:
            record['vapidValid'] = False
        name = os.path.join(folder, '%04d.json' % len([f for f in os.listdir(folder) if f.endswith('.json')]))
        with open(name + '.tmp', 'w') as f: json.dump(record, f)
        os.rename(name + '.tmp', name)
        status = 410 if self.path == '/gone' else 201
        self.send_response(status)
        self.send_header('Content-Length', '0')
        self.end_headers()
    def log_message(self, *arguments): pass
def certificate():
    """A self-signed certificate for 127.0.0.1 and localhost, a day long; its key and PEM, written to FOLDER."""
    tls_key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, 'tvguide test push service')])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(tls_key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address('127.0.0.1')), x509.DNSName('localhost')]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(tls_key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM)
    with open(os.path.join(folder, 'push-ca.pem'), 'wb') as f: f.write(pem)
    with open(os.path.join(folder, 'push-key.pem'), 'wb') as f:
        f.write(tls_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return pem.decode()
pem = certificate()
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(os.path.join(folder, 'push-ca.pem'), os.path.join(folder, 'push-key.pem'))
server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
server.socket = context.wrap_socket(server.socket, server_side=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(json.dumps({'port': server.server_address[1], 'p256dh': b64(public), 'auth': b64(auth), 'certificate': pem}), flush=True)
sys.stdin.read()
server.shutdown()
