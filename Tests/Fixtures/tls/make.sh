#!/bin/sh
# Makes the certificates the TLS tests use, once; they are kept in the repository.
# Run from this folder: sh make.sh (needs openssl 3). Validity: 100 years, except expired.pem.
# The CA keys are thrown away: nothing can be signed with them later.
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
days=36500

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

# The server CA and the client CA.
key "$work/ca.key"
openssl req -x509 -new -key "$work/ca.key" -days $days -subj "/CN=widgetd test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out ca.pem
key "$work/client-ca.key"
openssl req -x509 -new -key "$work/client-ca.key" -days $days -subj "/CN=widgetd test client CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out client-ca.pem

# sign NAME CA SAN EXTENDED-USAGE [openssl ca dates]: NAME.key and NAME.pem signed by CA.
leaf() {
    name=$1 ca=$2 san=$3 usage=$4
    key "$name.key"
    openssl req -new -key "$name.key" -subj "/CN=$name" -out "$work/$name.csr"
    printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=%s\n%s\n' \
        "$usage" "$san" >"$work/$name.ext"
    openssl x509 -req -in "$work/$name.csr" -CA "$ca.pem" -CAkey "$work/$ca.key" -CAcreateserial \
        -days $days -extfile "$work/$name.ext" -out "$name.pem" 2>/dev/null
}
leaf server ca "subjectAltName=IP:127.0.0.1,DNS:localhost" serverAuth
leaf wrong-host ca "subjectAltName=DNS:nas.example" serverAuth
leaf client client-ca "" clientAuth

# expired: valid in 2000 only, signed by the CA (openssl ca takes explicit dates).
key expired.key
openssl req -new -key expired.key -subj "/CN=expired" -out "$work/expired.csr"
mkdir "$work/db"
: >"$work/db/index.txt"
echo 01 >"$work/db/serial"
cat >"$work/ca.cnf" <<CNF
[ca]
default_ca = test
[test]
database = $work/db/index.txt
serial = $work/db/serial
new_certs_dir = $work/db
default_md = sha256
policy = any
unique_subject = no
copy_extensions = none
[any]
commonName = supplied
[leaf]
basicConstraints = CA:FALSE
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
CNF
openssl ca -batch -config "$work/ca.cnf" -cert ca.pem -keyfile "$work/ca.key" -extensions leaf \
    -startdate 20000101000000Z -enddate 20010101000000Z -in "$work/expired.csr" -out "$work/expired.full" 2>/dev/null
openssl x509 -in "$work/expired.full" -out expired.pem

# self-signed: its own CA, as a NAS or hypervisor makes at install.
key self-signed.key
openssl req -x509 -new -key self-signed.key -days $days -subj "/CN=self-signed" \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -out self-signed.pem

chmod 600 *.key
rm -f ./*.srl
