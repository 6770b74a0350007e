package datagen

import "github.com/streamsql/streamsql/types"

// Column positions of the canonical schemas (see Schema).
const (
	personID, personName, personEmail, personCard, personCity, personState, personDateTime, personExtra, personWidth = 0, 1, 2, 3, 4, 5, 6, 7, 8

	auctionID, auctionItem, auctionDesc, auctionInitialBid, auctionReserve, auctionDateTime, auctionExpires, auctionSeller, auctionCategory, auctionExtra, auctionWidth = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10

	bidAuction, bidBidder, bidPrice, bidChannel, bidURL, bidDateTime, bidExtra, bidWidth = 0, 1, 2, 3, 4, 5, 6, 7
)

// Bid writes event n as a bid row (auction, bidder, price, channel, url,
// date_time, extra). The auction is 1 in 2 the hot auction (the newest
// auction id rounded down to a multiple of 100), else uniform in
// [newest − 100, newest + 10]; the bidder is 3 in 4 the hot bidder (the
// newest person id rounded down to a multiple of 100, plus one), else a
// random active person; the price is round(10^(6u) · 100); the channel is
// half the time one of Google, Facebook, Baidu and Apple, else channel-<i>
// for i < 10,000, each with its URL. It allocates nothing.
func (g *Generator) Bid(n int64, dst types.Row) {
	r := newEventRand(g.seed, n)
	// One draw decides the power-of-two odds: bit 0 the hot auction (1 in
	// 2), bits 1–2 the hot bidder (3 in 4), bit 3 the hot channel (1 in 2)
	// and bits 4–5 which one.
	flags := r.next()
	var auction, bidder int64
	if flags&1 != 0 {
		auction = lastAuction(n) / hotRound * hotRound
	} else {
		auction = r.recentAuction(n)
	}
	if flags>>1&3 != 0 {
		bidder = lastPerson(n)/hotRound*hotRound + 1
	} else {
		bidder = r.activePerson(n)
	}
	price := r.price()
	var channel, url string
	if flags>>3&1 != 0 {
		i := flags >> 4 & 3
		channel, url = hotChannel[i], g.t.hotURL[i]
	} else {
		i := r.intn(numChannels)
		channel, url = g.t.channels[i], g.t.channelURL[i]
	}
	extra := g.extra(&r, g.bidExtra)
	dst = dst[:bidWidth]
	dst[bidAuction] = types.Value{K: types.Int, I: auction + firstAuctionID}
	dst[bidBidder] = types.Value{K: types.Int, I: bidder + firstPersonID}
	dst[bidPrice] = types.Value{K: types.Int, I: price}
	dst[bidChannel] = types.Value{K: types.String, S: channel}
	dst[bidURL] = types.Value{K: types.String, S: url}
	dst[bidDateTime] = types.Value{K: types.Timestamp, I: g.EventTime(n)}
	dst[bidExtra] = types.Value{K: types.String, S: extra}
}

// Auction writes event n as an auction row (id, item_name, description,
// initial_bid, reserve, date_time, expires, seller, category, extra). The
// id is the newest auction id at n; the seller is 3 in 4 the hot seller
// (the newest person id rounded down to a multiple of 100), else one of the
// last 1000 persons; the category is 10–14; initial_bid and the reserve's
// excess over it follow the bid price distribution; expires is 1 ms to
// twice the time of 100 auctions after the in-order event time. It
// allocates nothing.
func (g *Generator) Auction(n int64, dst types.Row) {
	r := newEventRand(g.seed, n)
	var seller int64
	if r.intn(hotSellerOdds) > 0 {
		seller = lastPerson(n) / hotRound * hotRound
	} else {
		seller = r.activePerson(n)
	}
	category := firstCategory + int64(r.intn(numCategories))
	initial := r.price()
	reserve := initial + r.price()
	at := g.InOrderTime(n)
	expires := at + types.Millisecond + int64(r.intn(uint64(max(2*g.horizon, 1))))
	name := g.word(&r, 20)
	desc := g.word(&r, 100)
	extra := g.extra(&r, newExtraSize(8+len(name)+len(desc)+8+8+8+8+8, avgAuctionSize))
	dst = dst[:auctionWidth]
	dst[auctionID] = types.Value{K: types.Int, I: lastAuction(n) + firstAuctionID}
	dst[auctionItem] = types.Value{K: types.String, S: name}
	dst[auctionDesc] = types.Value{K: types.String, S: desc}
	dst[auctionInitialBid] = types.Value{K: types.Int, I: initial}
	dst[auctionReserve] = types.Value{K: types.Int, I: reserve}
	dst[auctionDateTime] = types.Value{K: types.Timestamp, I: g.EventTime(n)}
	dst[auctionExpires] = types.Value{K: types.Timestamp, I: expires}
	dst[auctionSeller] = types.Value{K: types.Int, I: seller + firstPersonID}
	dst[auctionCategory] = types.Value{K: types.Int, I: category}
	dst[auctionExtra] = types.Value{K: types.String, S: extra}
}

// Person writes event n as a person row (id, name, email_address,
// credit_card, city, state, date_time, extra). The id is n / 50 + 1000;
// the name joins a first and a last name from the reference's lists; the
// email is <word>@<word>.com; the credit card four groups of four digits;
// the city one of ten US cities and the state one of AZ, CA, ID, OR, WA and
// WY (drawn independently, as the reference does). It allocates one string
// (the email and the card share it).
func (g *Generator) Person(n int64, dst types.Row) {
	r := newEventRand(g.seed, n)
	name := g.t.fullNames[r.intn(uint64(len(g.t.fullNames)))]
	var buf [64]byte
	b := append(buf[:0], g.word(&r, 7)...)
	b = append(b, '@')
	b = append(b, g.word(&r, 5)...)
	b = append(b, ".com"...)
	emailLen := len(b)
	for i := range 4 {
		if i > 0 {
			b = append(b, ' ')
		}
		v := r.intn(10000)
		b = append(b, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
	}
	s := string(b)
	email, card := s[:emailLen], s[emailLen:]
	city := usCities[r.intn(uint64(len(usCities)))]
	state := usStates[r.intn(uint64(len(usStates)))]
	extra := g.extra(&r, newExtraSize(8+len(name)+len(email)+len(card)+len(city)+len(state), avgPersonSize))
	dst = dst[:personWidth]
	dst[personID] = types.Value{K: types.Int, I: lastPerson(n) + firstPersonID}
	dst[personName] = types.Value{K: types.String, S: name}
	dst[personEmail] = types.Value{K: types.String, S: email}
	dst[personCard] = types.Value{K: types.String, S: card}
	dst[personCity] = types.Value{K: types.String, S: city}
	dst[personState] = types.Value{K: types.String, S: state}
	dst[personDateTime] = types.Value{K: types.Timestamp, I: g.EventTime(n)}
	dst[personExtra] = types.Value{K: types.String, S: extra}
}
