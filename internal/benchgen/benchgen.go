// Package benchgen generates realistic contacts deterministically, for the benchmarks (the
// store's in-process ones and the bench module's `make bench`) and nothing else.
package benchgen

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"switchboard/internal/textfold"
)

// domains are email domains, most frequent first.
var domains = []string{
	"gmail.com", "yahoo.com", "hotmail.com", "outlook.com", "icloud.com", "aol.com", "comcast.net",
	"msn.com", "live.com", "att.net", "verizon.net", "me.com", "mail.com", "protonmail.com", "gmx.com",
	"ymail.com", "sbcglobal.net", "bellsouth.net", "cox.net", "charter.net", "earthlink.net",
	"juno.com", "fastmail.com", "zoho.com", "hey.com", "yandex.com", "example.com", "acme.com",
	"globex.com", "initech.com", "umbrella-corp.com", "hooli.com", "starkindustries.com",
	"wayne-enterprises.com", "wonka.com", "cyberdyne.com", "tyrell.com", "soylent.com",
	"vandelay.com", "dundermifflin.com", "piedpiper.com", "aperture.com", "blackmesa.com",
	"oscorp.com", "contoso.com", "fabrikam.com", "northwind.com", "tailspin.com",
	"adventure-works.com", "wideworldimporters.com",
}

// companies are employer names for the ~30% of contacts that have one.
var companies = []string{
	"Acme Corp", "Globex", "Initech", "Umbrella Corporation", "Hooli", "Stark Industries",
	"Wayne Enterprises", "Wonka Industries", "Cyberdyne Systems", "Tyrell Corporation",
	"Soylent Inc", "Vandelay Industries", "Dunder Mifflin", "Pied Piper", "Aperture Science",
	"Black Mesa", "Oscorp", "Contoso Ltd", "Fabrikam", "Northwind Traders", "Tailspin Toys",
	"Adventure Works", "Wide World Importers", "Blue Sky Bakery", "Main Street Dental",
	"Riverside Plumbing", "Summit Realty", "Lakeside Auto Repair", "Green Leaf Landscaping",
	"Bright Smile Orthodontics", "Harbor Freight Logistics", "Pinecrest Veterinary",
	"Golden Gate Fitness", "Sunrise Senior Living", "Metro Property Management", "Café Olé",
	"Crème de la Crème Catering", "Señor Taco", "Müller & Söhne", "Northside Pharmacy",
	"Eastside Pediatrics", "Westfield Insurance Agency", "Cornerstone Church", "Liberty Tax",
	"Allstate Agency", "State Farm Agency", "Keller Williams", "RE/MAX Gold", "Coldwell Banker",
	"Jiffy Lube", "Two Men and a Truck", "Mr. Rooter", "Molly Maid", "Great Clips",
	"Anytime Fitness", "Orangetheory", "Planet Fitness", "Smith & Sons Roofing",
	"Johnson Family Dentistry", "Garcia Law Group", "Nguyen Nail Spa", "Patel Pharmacy",
	"Kim's Dry Cleaning", "Chen Accounting", "O'Brien's Pub", "Rossi Pizzeria",
	"Lopez Landscaping", "Brown Brothers Moving", "Miller Electric", "Davis HVAC",
}

// Contact is one generated contact; properties are "" when not set.
type Contact struct {
	First, Last, Phone, Email, Company, Plan, Score string
}

// Gen generates contacts deterministically: names picked with Zipf-like weights
// (1/(rank+k): the commonest first name is about 2% of contacts), unique US phone numbers
// +1NXXNXXXXXX, emails first.last+N@domain and a company for about 30%.
type Gen struct {
	r                       *rand.Rand
	first, last, domains    []float64 // cumulative weights
	seenPhone               map[uint64]struct{}
	n                       int
	foldedFirst, foldedLast []string
}

func cumulative(n int, k float64) []float64 {
	c := make([]float64, n)
	sum := 0.0
	for i := range c {
		sum += 1 / (float64(i) + k)
		c[i] = sum
	}
	return c
}

// New returns a generator; the same seed gives the same contacts.
func New(seed uint64) *Gen {
	g := &Gen{
		r:         rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		first:     cumulative(len(firstNames), 10),
		last:      cumulative(len(lastNames), 20),
		domains:   cumulative(len(domains), 3),
		seenPhone: map[uint64]struct{}{},
	}
	for _, n := range firstNames {
		g.foldedFirst = append(g.foldedFirst, EmailPart(n))
	}
	for _, n := range lastNames {
		g.foldedLast = append(g.foldedLast, EmailPart(n))
	}
	return g
}

// EmailPart is a name as it appears in an email address: folded, letters and digits only.
func EmailPart(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, textfold.Fold(name))
}

func (g *Gen) pick(c []float64) int {
	return sort.SearchFloat64s(c, g.r.Float64()*c[len(c)-1])
}

// Next returns the next contact.
func (g *Gen) Next() Contact {
	g.n++
	fi, li := g.pick(g.first), g.pick(g.last)
	c := Contact{First: firstNames[fi], Last: lastNames[li]}
	for {
		// +1 NXX NXX XXXX: area code and exchange start with 2-9.
		num := uint64(2+g.r.IntN(8))*1e9 + uint64(g.r.IntN(100))*1e7 +
			uint64(2+g.r.IntN(8))*1e6 + uint64(g.r.IntN(1e6))
		if _, dup := g.seenPhone[num]; !dup {
			g.seenPhone[num] = struct{}{}
			c.Phone = "+1" + strconv.FormatUint(num, 10)
			break
		}
	}
	c.Email = fmt.Sprintf("%s.%s+%d@%s", g.foldedFirst[fi], g.foldedLast[li], g.n, domains[g.pick(g.domains)])
	if g.r.IntN(10) < 3 {
		c.Company = companies[g.r.IntN(len(companies))]
	}
	if g.r.IntN(10) < 6 {
		c.Plan = []string{"free", "starter", "pro", "enterprise"}[g.r.IntN(4)]
	}
	if g.r.IntN(10) < 4 {
		c.Score = strconv.Itoa(g.r.IntN(1000))
	}
	return c
}

// WriteCSV writes n generated contacts as an import file: firstName, lastName, phone, email,
// company, and with properties the plan and score columns too.
func WriteCSV(path string, n int, seed uint64, properties bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w := csv.NewWriter(bw)
	header := []string{"firstName", "lastName", "phone", "email", "company"}
	if properties {
		header = append(header, "plan", "score")
	}
	_ = w.Write(header)
	g := New(seed)
	for range n {
		c := g.Next()
		row := []string{c.First, c.Last, c.Phone, c.Email, c.Company}
		if properties {
			row = append(row, c.Plan, c.Score)
		}
		_ = w.Write(row)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// firstNames are first names, roughly by frequency (609 names).
var firstNames = []string{
	"James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "William",
	"Elizabeth", "David", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah",
	"Charles", "Karen", "Christopher", "Lisa", "Daniel", "Nancy", "Matthew", "Betty", "Anthony",
	"Sandra", "Mark", "Margaret", "Donald", "Ashley", "Steven", "Kimberly", "Paul", "Emily",
	"Andrew", "Donna", "Joshua", "Michelle", "Kenneth", "Carol", "Kevin", "Amanda", "Brian",
	"Melissa", "George", "Deborah", "Timothy", "Stephanie", "Ronald", "Dorothy", "Edward",
	"Rebecca", "Jason", "Sharon", "Jeffrey", "Laura", "Ryan", "Cynthia", "Jacob", "Amy", "Gary",
	"Kathleen", "Nicholas", "Angela", "Eric", "Shirley", "Jonathan", "Brenda", "Stephen", "Emma",
	"Larry", "Anna", "Justin", "Pamela", "Scott", "Nicole", "Brandon", "Samantha", "Benjamin",
	"Katherine", "Samuel", "Christine", "Gregory", "Helen", "Alexander", "Debra", "Frank",
	"Rachel", "Patrick", "Carolyn", "Raymond", "Janet", "Jack", "Maria", "Dennis", "Catherine",
	"Jerry", "Heather", "Tyler", "Diane", "Aaron", "Olivia", "Jose", "Julie", "Adam", "Joyce",
	"Nathan", "Victoria", "Henry", "Ruth", "Douglas", "Virginia", "Zachary", "Lauren", "Peter",
	"Kelly", "Kyle", "Christina", "Ethan", "Joan", "Walter", "Evelyn", "Noah", "Judith", "Jeremy",
	"Andrea", "Christian", "Hannah", "Keith", "Megan", "Roger", "Cheryl", "Terry", "Jacqueline",
	"Gerald", "Martha", "Harold", "Madison", "Sean", "Teresa", "Austin", "Gloria", "Carl", "Sara",
	"Arthur", "Janice", "Lawrence", "Ann", "Dylan", "María", "Kathryn", "Jesse", "Abigail",
	"Jordan", "Sofía", "Sophia", "Bryan", "Frances", "Billy", "Lucía", "Jean", "Joe", "Alice",
	"Bruce", "Inés", "Judy", "Gabriel", "Isabella", "Logan", "Zoë", "Julia", "Albert", "Grace",
	"Willie", "Chloé", "Amber", "Alan", "Denise", "Juan", "Renée", "Danielle", "Wayne", "Marilyn",
	"Elijah", "Zoé", "Beverly", "Randy", "Charlotte", "Roy", "Élodie", "Natalie", "Vincent",
	"Theresa", "Ralph", "Hélène", "Diana", "Eugene", "Brittany", "Russell", "Anaïs", "Doris",
	"Bobby", "Kayla", "Mason", "Björk", "Alexis", "Philip", "Lori", "Louis", "Małgorzata", "Marie",
	"Harry", "Ava", "Howard", "Agnès", "Mia", "Fred", "Harper", "Martin", "Léa", "Amelia", "Lucas",
	"Ella", "Oliver", "Maëlle", "Scarlett", "Liam", "Aria", "Owen", "Céline", "Chloe", "Caleb",
	"Camila", "Luke", "Mónica", "Penelope", "Isaac", "Riley", "Hunter", "Verónica", "Layla",
	"Evan", "Lillian", "Connor", "Begoña", "Nora", "Jayden", "Zoey", "Carter", "Ángela", "Mila",
	"Wyatt", "Aubrey", "Julian", "Raquel", "Hazel", "Levi", "Ellie", "Isaiah", "Dolores", "Violet",
	"Landon", "Aurora", "Grayson", "Guadalupe", "Savannah", "Hudson", "Audrey", "Lincoln",
	"Mercedes", "Brooklyn", "Miles", "Bella", "Jaxon", "Pilar", "Claire", "Asher", "Skylar", "Leo",
	"Rocío", "Lucy", "Theo", "Paisley", "Ezra", "Beatriz", "Everly", "Silas", "Caroline",
	"Everett", "Carmen", "Nova", "Maverick", "Genesis", "Elias", "Lourdes", "Emilia", "Declan",
	"Kennedy", "Rowan", "Marisol", "Maya", "Emmett", "Willow", "Felix", "Yolanda", "Kinsley",
	"Hugo", "Naomi", "Oscar", "Jimena", "Aaliyah", "Max", "Elena", "Victor", "Fernanda", "Ariana",
	"Dominic", "Allison", "Marcus", "Gabriela", "Gabriella", "Xavier", "Madelyn", "Ian", "Paola",
	"Cora", "Cole", "Ruby", "Blake", "Alejandra", "Eva", "Chase", "Serenity", "Tristan", "Leticia",
	"Autumn", "Colin", "Adeline", "Garrett", "Adriana", "Hailey", "Trevor", "Gianna", "Brett",
	"Araceli", "Valentina", "Derek", "Isla", "Shane", "Noémie", "Eliana", "Travis", "Quinn",
	"Cody", "Françoise", "Nevaeh", "Dustin", "Ivy", "Marco", "Geneviève", "Sadie", "Antonio",
	"Piper", "Carlos", "Aurélie", "Lydia", "Luis", "Alexa", "Miguel", "Mélanie", "Josephine",
	"Diego", "Emery", "Alejandro", "Séverine", "Delilah", "Javier", "Arianna", "Ricardo", "Cécile",
	"Vivian", "Fernando", "Kaylee", "Pedro", "Thérèse", "Sophie", "Rafael", "Brielle", "Manuel",
	"Siân", "Madeline", "Francisco", "Peyton", "Jorge", "Sinéad", "Rylee", "Eduardo", "Clara",
	"Roberto", "Aoife", "Hadley", "Andres", "Melanie", "Mateo", "Niamh", "Mackenzie", "Santiago",
	"Reagan", "Emilio", "Saoirse", "Adalynn", "Pablo", "Liliana", "Sergio", "Orla", "Aubree",
	"Arturo", "Jade", "Enrique", "Siobhán", "Isabelle", "Alfredo", "Natalia", "Cesar", "Priya",
	"Raelynn", "Mario", "Athena", "Ramon", "Ananya", "Ximena", "Hector", "Arya", "Ángel", "Aisha",
	"Leilani", "Jesús", "Taylor", "Raúl", "Fatima", "Faith", "Rubén", "Rose", "Iván", "Mei",
	"Kylie", "Adrián", "Alexandra", "Martín", "Yuki", "Lyla", "Joaquín", "Amaya", "Nicolás",
	"Sakura", "Eliza", "Sebastián", "Brianna", "Agustín", "Hana", "Bailey", "Matías", "Khloe",
	"Tomás", "Ji-woo", "Jasmine", "Julián", "Melody", "Damián", "Seo-yeon", "Iris", "Simón",
	"Isabel", "Óscar", "Norah", "José", "Annabelle", "André", "Valeria", "François", "Emerson",
	"Jérôme", "Adalyn", "Noël", "Ryleigh", "Loïc", "Eden", "Gaël", "Emersyn", "Björn", "Anastasia",
	"Søren", "Alyssa", "Jürgen", "Juliana", "Jörg", "Charlie", "Günter", "Esther", "Łukasz",
	"Ariel", "Paweł", "Cecilia", "Zoltán", "Valerie", "Dávid", "Alina", "István", "Molly", "Ahmed",
	"Reese", "Mohammed", "Aliyah", "Omar", "Lilly", "Ali", "Parker", "Hassan", "Finley", "Yusuf",
	"Morgan", "Ibrahim", "Sydney", "Raj", "Jordyn", "Arjun", "Eloise", "Vikram", "Trinity",
	"Rahul", "Daisy", "Amit", "Genevieve", "Wei", "Arabella", "Jun", "Harmony", "Hiroshi", "Elise",
	"Kenji", "Remi", "Takumi", "Teagan", "Min", "London", "Jin", "Sloane", "Seán", "Laila",
	"Ciarán", "Lucia", "Pádraig", "Juliette", "Éamon", "Sienna", "Elliana", "Londyn", "Ayla",
	"Callie", "Gracie", "Josie", "Amara", "Jocelyn", "Daniela", "Everleigh", "Mya", "Summer",
	"Alana", "Brooke", "Alaina", "Mckenzie", "Presley", "Journee", "Rosalie", "Ember", "Brynlee",
	"Joanna", "Paige", "Ana", "Sawyer", "Mariah", "Brooklynn", "Payton", "Marley", "Fiona",
	"Georgia", "Lila", "Harley", "Adelyn", "Alivia", "Noelle", "Gemma", "Vanessa", "Journey",
	"Makayla", "Angelina", "Adaline", "Catalina", "Alayna", "Julianna", "Leah", "Lily", "Zoe",
	"Stella", "Addison", "Avery", "Sofia",
}

// lastNames are last names, roughly by frequency (1090 names).
var lastNames = []string{
	"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez",
	"Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor",
	"Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez",
	"Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright", "Scott",
	"Torres", "Nguyen", "Hill", "Flores", "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera",
	"Campbell", "Mitchell", "Carter", "Roberts", "Gomez", "Phillips", "Evans", "Turner", "Diaz",
	"Parker", "Cruz", "Edwards", "Collins", "Reyes", "Stewart", "Morris", "Morales", "Murphy",
	"Cook", "Rogers", "Gutierrez", "Ortiz", "Morgan", "Cooper", "Peterson", "Bailey", "Reed",
	"Kelly", "Howard", "Ramos", "Kim", "Cox", "Ward", "Richardson", "Watson", "Brooks", "Chavez",
	"Wood", "James", "Bennett", "Gray", "Mendoza", "Ruiz", "Hughes", "Price", "Alvarez",
	"Castillo", "Sanders", "Patel", "Myers", "Long", "Ross", "Foster", "Jimenez", "Powell",
	"Jenkins", "Perry", "Russell", "Sullivan", "Bell", "Coleman", "Butler", "Henderson", "Barnes",
	"Gonzales", "Fisher", "Vasquez", "Simmons", "Romero", "Jordan", "Patterson", "Alexander",
	"Hamilton", "Graham", "Reynolds", "Griffin", "Wallace", "Moreno", "West", "Cole", "Hayes",
	"Bryant", "Herrera", "Gibson", "Ellis", "Tran", "Medina", "Aguilar", "Stevens", "Murray",
	"Ford", "Castro", "Marshall", "Owens", "Harrison", "Fernandez", "McDonald", "Woods",
	"Washington", "Kennedy", "Wells", "Vargas", "Henry", "Chen", "Freeman", "Webb", "Tucker",
	"Guzman", "Burns", "Crawford", "Olson", "Simpson", "Porter", "Hunter", "Gordon", "Mendez",
	"Silva", "Shaw", "Snyder", "Mason", "Dixon", "Munoz", "Hunt", "Hicks", "Holmes", "Palmer",
	"Wagner", "Black", "Robertson", "Boyd", "Rose", "Stone", "Salazar", "Fox", "Warren", "Mills",
	"Meyer", "Rice", "Schmidt", "Garza", "Daniels", "Ferguson", "Nichols", "Stephens", "Soto",
	"Weaver", "Ryan", "Gardner", "Payne", "Grant", "Dunn", "Kelley", "Spencer", "Hawkins",
	"Arnold", "Pierce", "Vazquez", "Hansen", "Peters", "Santos", "Hart", "Bradley", "Knight",
	"Elliott", "Cunningham", "Duncan", "Armstrong", "Hudson", "Carroll", "Lane", "Riley",
	"Andrews", "Alvarado", "Ray", "Delgado", "Berry", "Perkins", "Hoffman", "Johnston", "Matthews",
	"Pena", "Richards", "Contreras", "Willis", "Carpenter", "Lawrence", "Sandoval", "Guerrero",
	"George", "Chapman", "Rios", "Estrada", "Ortega", "Watkins", "Greene", "Nunez", "Wheeler",
	"Valdez", "Harper", "Burke", "Larson", "Santiago", "Maldonado", "Morrison", "Franklin",
	"Carlson", "Austin", "Dominguez", "Carr", "Lawson", "Jacobs", "Obrien", "Lynch", "Singh",
	"Vega", "Bishop", "Montgomery", "Oliver", "Jensen", "Harvey", "Williamson", "Gilbert", "Dean",
	"Sims", "Espinoza", "Howell", "Li", "Wong", "Reid", "Hanson", "Le", "McCoy", "Garrett",
	"Burton", "Fuller", "Wang", "Weber", "Welch", "Rojas", "Lucas", "Marquez", "Fields", "Park",
	"Yang", "Little", "Banks", "Padilla", "Day", "Walsh", "Bowman", "Schultz", "Luna", "Fowler",
	"Mejia", "Davidson", "Acosta", "Brewer", "May", "Holland", "Juarez", "Newman", "Pearson",
	"Curtis", "Cortez", "Douglas", "Schneider", "Joseph", "Barrett", "Navarro", "Figueroa",
	"Keller", "Avila", "Wade", "Molina", "Stanley", "Hopkins", "Campos", "Barnett", "Bates",
	"Chambers", "Caldwell", "Beck", "Lambert", "Miranda", "Byrd", "Craig", "Ayala", "Lowe",
	"Frazier", "Powers", "Neal", "Leonard", "Gregory", "Carrillo", "Sutton", "Fleming", "Rhodes",
	"Shelton", "Schwartz", "Norris", "Jennings", "Watts", "Duran", "Walters", "Cohen", "McDaniel",
	"Moran", "Parks", "Steele", "Vaughn", "Becker", "Holt", "Deleon", "Barker", "Terry", "Hale",
	"Leon", "Benson", "Haynes", "Horton", "Miles", "Lyons", "Pham", "Graves", "Bush", "Thornton",
	"Wolfe", "Warner", "Cabrera", "McKinney", "Mann", "Zimmerman", "Dawson", "Lara", "Fletcher",
	"Page", "McCarthy", "Love", "Robles", "Cervantes", "Solis", "Erickson", "Reeves", "Chang",
	"Klein", "Salinas", "Fuentes", "Baldwin", "Daniel", "Simon", "Velasquez", "Hardy", "Higgins",
	"Aguirre", "Lin", "Cummings", "Chandler", "Sharp", "Barber", "Bowen", "Ochoa", "Dennis",
	"Robbins", "Liu", "Ramsey", "Francis", "Griffith", "Paul", "Blair", "Oconnor", "Cardenas",
	"Pacheco", "Cross", "Calderon", "Quinn", "Moss", "Swanson", "Chan", "Rivas", "Khan", "Rodgers",
	"Serrano", "Fitzgerald", "Rosales", "Stevenson", "Christensen", "Manning", "Gill", "Curry",
	"McLaughlin", "Harmon", "McGee", "Gross", "Doyle", "Garner", "Newton", "Burgess", "Reese",
	"Walton", "Blake", "Trujillo", "Adkins", "Brady", "Goodman", "Roman", "Webster", "Goodwin",
	"Fischer", "Huang", "Potter", "Delacruz", "Montoya", "Todd", "Wu", "Hines", "Mullins",
	"Castaneda", "Malone", "Cannon", "Tate", "Mack", "Sherman", "Hubbard", "Hodges", "Zhang",
	"Guerra", "Wolf", "Valencia", "Saunders", "Franco", "Rowe", "Gallagher", "Farmer", "Hammond",
	"Hampton", "Townsend", "Ingram", "Wise", "Gallegos", "Clarke", "Barton", "Schroeder",
	"Maxwell", "Waters", "Logan", "Camacho", "Strickland", "Norman", "Person", "Colon", "Parsons",
	"Frank", "Harrington", "Glover", "Osborne", "Buchanan", "Casey", "Floyd", "Patton", "Ibarra",
	"Ball", "Tyler", "Suarez", "Bowers", "Orozco", "Salas", "Cobb", "Gibbs", "Andrade", "Bauer",
	"Conner", "Moody", "Escobar", "McGuire", "Lloyd", "Mueller", "Hartman", "French", "Kramer",
	"McBride", "Pope", "Lindsey", "Velazquez", "Norton", "McCormick", "Sparks", "Flynn", "Yates",
	"Hogan", "Marsh", "Macias", "Villanueva", "Zamora", "Pratt", "Stokes", "Owen", "Ballard",
	"Lang", "Brock", "Villarreal", "Charles", "Drake", "Barrera", "Cain", "Patrick", "Pineda",
	"Burnett", "Mercado", "Santana", "Shepherd", "Bautista", "Ali", "Shaffer", "Lamb", "Trevino",
	"McKenzie", "Hess", "Olsen", "Cochran", "Morton", "Nash", "Wilkins", "Petersen", "Briggs",
	"Shah", "Roth", "Nicholson", "Holloway", "Lozano", "Rangel", "Flowers", "Hoover", "Short",
	"Arias", "Mora", "Valenzuela", "Bryan", "Meyers", "Weiss", "Underwood", "Bass", "Greer",
	"Summers", "Houston", "Carson", "Morrow", "Clayton", "Whitaker", "Decker", "Yoder", "Collier",
	"Zuniga", "Carey", "Wilcox", "Melendez", "Poole", "Roberson", "Larsen", "Conley", "Davenport",
	"Copeland", "Massey", "Lam", "Huff", "Rocha", "Cameron", "Jefferson", "Hood", "Monroe",
	"Anthony", "Pittman", "Huynh", "Randall", "Singleton", "Kirk", "Combs", "Mathis", "Christian",
	"Skinner", "Bradford", "Richard", "Galvan", "Wall", "Boone", "Kirby", "Wilkinson", "Bridges",
	"Bruce", "Atkinson", "Velez", "Meza", "Roy", "Vincent", "York", "Hodge", "Villa", "Abbott",
	"Allison", "Tapia", "Gates", "Chase", "Sosa", "Sweeney", "Farrell", "Wyatt", "Dalton", "Horn",
	"Barron", "Phelps", "Yu", "Dickerson", "Heath", "Foley", "Atkins", "Mathews", "Bonilla",
	"Acevedo", "Benitez", "Zavala", "Hensley", "Glenn", "Cisneros", "Harrell", "Shields", "Rubio",
	"Huffman", "Choi", "Boyer", "Garrison", "Arroyo", "Bond", "Kane", "Hancock", "Callahan",
	"Dillon", "Cline", "Wiggins", "Grimes", "Arellano", "Melton", "Oneill", "Savage", "Ho",
	"Beltran", "Pitts", "Parrish", "Ponce", "Rich", "Booth", "Koch", "Golden", "Ware", "Brennan",
	"McDowell", "Marks", "Cantu", "Humphrey", "Baxter", "Sawyer", "Clay", "Tanner", "Hutchinson",
	"Kaur", "Berg", "Wiley", "Gilmore", "Russo", "Villegas", "Hobbs", "Keith", "Wilkerson",
	"Ahmed", "Beard", "McClain", "Montes", "Mata", "Rosario", "Vang", "Walter", "Henson", "Oneal",
	"Mosley", "McClure", "Beasley", "Stephenson", "Snow", "Huerta", "Preston", "Vance", "Barry",
	"Johns", "Eaton", "Blackwell", "Dyer", "Prince", "Macdonald", "Solomon", "Guevara", "Stafford",
	"English", "Hurst", "Woodard", "Cortes", "Shannon", "Kemp", "Nolan", "McCullough", "Merritt",
	"Murillo", "Moon", "Salgado", "Strong", "Kline", "Cordova", "Barajas", "Roach", "Rosas",
	"Winters", "Jacobson", "Lester", "Knox", "Bullock", "Kerr", "Leach", "Meadows", "Orr",
	"Davila", "Whitehead", "Pruitt", "Kent", "Conway", "McKee", "Barr", "David", "Dejesus",
	"Marin", "Berger", "McIntyre", "Blankenship", "Gaines", "Palacios", "Cuevas", "Bartlett",
	"Durham", "Dorsey", "McCall", "Odonnell", "Stein", "Browning", "Stout", "Lowery", "Sloan",
	"McLean", "Hendricks", "Calhoun", "Sexton", "Chung", "Gentry", "Hull", "Duarte", "Ellison",
	"Nielsen", "Gillespie", "Buck", "Middleton", "Sellers", "Leblanc", "Esparza", "Hardin",
	"Bradshaw", "McIntosh", "Howe", "Livingston", "Frost", "Glass", "Morse", "Knapp", "Herman",
	"Stark", "Bravo", "Noble", "Spears", "Weeks", "Corona", "Frederick", "Buckley", "McFarland",
	"Hebert", "Enriquez", "Hickman", "Quintero", "Randolph", "Schaefer", "Walls", "Trejo", "House",
	"Reilly", "Pennington", "Michael", "Conrad", "Giles", "Benjamin", "Crosby", "Fitzpatrick",
	"Donovan", "Mays", "Mahoney", "Valentine", "Raymond", "Medrano", "Hahn", "McMillan", "Small",
	"Bentley", "Felix", "Peck", "Lucero", "Boyle", "Hanna", "Pace", "Rush", "Hurley", "Harding",
	"McConnell", "Bernal", "Nava", "Ayers", "Everett", "Ventura", "Avery", "Pugh", "Mayer",
	"Bender", "Shepard", "McMahon", "Landry", "Case", "Sampson", "Moses", "Magana", "Blackburn",
	"Dunlap", "Gould", "Duffy", "Vaughan", "Herring", "McKay", "Espinosa", "Rivers", "Farley",
	"Bernard", "Ashley", "Friedman", "Potts", "Truong", "Costa", "Correa", "Blevins", "Nixon",
	"Clements", "Fry", "Delarosa", "Best", "Benton", "Lugo", "Portillo", "Dougherty", "Crane",
	"Haley", "Phan", "Villalobos", "Blanchard", "Horne", "Finley", "Quintana", "Lynn", "Esquivel",
	"Bean", "Dodson", "Mullen", "Xiong", "Hayden", "Cano", "Levy", "Huber", "Richmond", "Moyer",
	"Lim", "Frye", "Sheppard", "McCarty", "Avalos", "Booker", "Waller", "Parra", "Woodward",
	"Jaramillo", "Krueger", "Rasmussen", "Brandt", "Peralta", "Donaldson", "Stuart", "Faulkner",
	"Maynard", "Galindo", "Coffey", "Estes", "Sanford", "Burch", "Maddox", "Vo", "Oconnell", "Vu",
	"Andersen", "Spence", "McPherson", "Church", "Schmitt", "Stanton", "Leal", "Cherry", "Compton",
	"Dudley", "Sierra", "Pollard", "Alfaro", "Hester", "Proctor", "Lu", "Hinton", "Novak", "Good",
	"Madden", "McCann", "Terrell", "Jarvis", "Dickson", "Reyna", "Cantrell", "Mayo", "Branch",
	"Hendrix", "Rollins", "Rowland", "Whitney", "Duke", "Odom", "Daugherty", "Travis", "Tang",
	"García", "Martínez", "Rodríguez", "Hernández", "López", "González", "Pérez", "Sánchez",
	"Ramírez", "Gómez", "Díaz", "Núñez", "Jiménez", "Álvarez", "Fernández", "Vásquez", "Gutiérrez",
	"Ortíz", "Muñoz", "Peña", "Domínguez", "Vázquez", "Suárez", "Márquez", "Velásquez", "Ibáñez",
	"Cortés", "Chávez", "Benítez", "Müller", "Schäfer", "Schröder", "Köhler", "Weiß", "Jäger",
	"Krüger", "Groß", "Böhm", "Günther", "Lefèvre", "Dupré", "Bélanger", "Côté", "Gagné", "Bérubé",
	"Pelletier", "Fréchette", "Lévesque", "Thériault", "Hébert", "Østergaard", "Søndergaard",
	"Jørgensen", "Nørgaard", "Åberg", "Öberg", "Ström", "Lindström", "Söderberg", "Nyström",
	"Kowalski", "Wiśniewski", "Wójcik", "Kamiński", "Lewandowski", "Zieliński", "Szymański",
	"Dąbrowski", "Kozłowski", "Jankowski", "Nowak", "Horváth", "Kovács", "Tóth", "Szabó", "Nagy",
	"Novák", "Dvořák", "Černý", "Procházka", "Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Öztürk",
	"Doğan", "O'Brien", "O'Connor", "O'Neill", "D'Angelo", "Van der Berg", "De la Cruz",
}
